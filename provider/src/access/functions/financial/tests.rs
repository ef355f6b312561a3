//! The financial functions against Microsoft's examples and
//! numpy-financial.

use super::lists::Flows;
use super::math::net_present_value;
use super::*;
use datafusion::arrow::datatypes::DataType;

/// `f` of the Access function over `args` (Doubles), as a query calls it.
fn call(f: fn(&Call) -> Result<Value>, name: &'static str, args: &[f64]) -> Result<f64> {
    let vals: Vec<Value> = args.iter().map(|x| Value::Double(*x)).collect();
    let c = Call {
        name,
        args: &vals,
        ret: &DataType::Float64,
    };
    match f(&c)? {
        Value::Double(x) => Ok(x),
        other => panic!("{name}: {other:?} is no Double"),
    }
}

fn ok(f: fn(&Call) -> Result<Value>, name: &'static str, args: &[f64]) -> f64 {
    call(f, name, args).unwrap_or_else(|e| panic!("{name}{args:?}: {e}"))
}

fn error(f: fn(&Call) -> Result<Value>, name: &'static str, args: &[f64]) -> String {
    match call(f, name, args) {
        Ok(x) => panic!("{name}{args:?}: no error, answered {x}"),
        Err(e) => e.to_string(),
    }
}

/// `x` rounded to cents (the pages print money so).
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} is not {b} (±{tol})");
}

/// Excel's PMT page examples (<https://support.microsoft.com/en-US/excel/functions/pmt-function>; the same function
/// as VBA's Pmt, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/pmt-function>): 10 monthly payments of a 10,000
/// loan at 8% a year, at the end and at the start of each month, and
/// saving 50,000 in 18 years at 6%.
#[test]
fn pmt_matches_microsofts_examples() {
    assert_eq!(
        cents(ok(pmt, "Pmt", &[0.08 / 12.0, 10.0, 10000.0])),
        -1037.03
    );
    assert_eq!(
        cents(ok(pmt, "Pmt", &[0.08 / 12.0, 10.0, 10000.0, 0.0, 1.0])),
        -1030.16
    );
    assert_eq!(
        cents(ok(pmt, "Pmt", &[0.06 / 12.0, 216.0, 0.0, 50000.0])),
        -129.08
    );
    // rate 0: the amount spread evenly
    assert_eq!(ok(pmt, "Pmt", &[0.0, 10.0, 1000.0, 500.0]), -150.0);
    assert!(error(pmt, "Pmt", &[0.1, 0.0, 1000.0]).contains("Pmt: argument NPer must not be 0"));
}

/// Excel's IPMT and PPMT page examples (<https://support.microsoft.com/en-US/excel/functions/ipmt-function>,
/// <https://support.microsoft.com/en-US/excel/functions/ppmt-function>; VBA's <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ipmt-function>, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ppmt-function>):
/// the first month's interest on 8,000 over 3 years at 10% is -66.67,
/// the last year's on yearly payments -292.45; the first month's
/// principal of 2,000 over 2 years at 10% is -75.62, the 10th year's
/// of 200,000 at 8% -27,598.05.
#[test]
fn ipmt_and_ppmt_match_microsofts_examples() {
    assert_eq!(
        cents(ok(ipmt, "IPmt", &[0.1 / 12.0, 1.0, 36.0, 8000.0])),
        -66.67
    );
    assert_eq!(cents(ok(ipmt, "IPmt", &[0.1, 3.0, 3.0, 8000.0])), -292.45);
    assert_eq!(
        cents(ok(ppmt, "PPmt", &[0.1 / 12.0, 1.0, 24.0, 2000.0])),
        -75.62
    );
    assert_eq!(
        cents(ok(ppmt, "PPmt", &[0.08, 10.0, 10.0, 200000.0])),
        -27598.05
    );
    // payments at the start: the first is all principal
    assert_eq!(ok(ipmt, "IPmt", &[0.1, 1.0, 10.0, 1000.0, 0.0, 1.0]), 0.0);
    let p = ok(pmt, "Pmt", &[0.1, 10.0, 1000.0, 0.0, 1.0]);
    assert_eq!(ok(ppmt, "PPmt", &[0.1, 1.0, 10.0, 1000.0, 0.0, 1.0]), p);
    // interest plus principal is the payment, every period
    let p = ok(pmt, "Pmt", &[0.01, 24.0, 5000.0, -1000.0]);
    for per in 1..=24 {
        let args = [0.01, per as f64, 24.0, 5000.0, -1000.0];
        let sum = ok(ipmt, "IPmt", &args) + ok(ppmt, "PPmt", &args);
        close(sum, p, 1e-9, "IPmt + PPmt");
    }
    for bad in [0.0, 25.5] {
        let e = error(ipmt, "IPmt", &[0.01, bad, 24.0, 5000.0]);
        assert!(
            e.contains("IPmt: argument Per must be in the range 1 through NPer"),
            "{e}"
        );
    }
}

/// Excel's PV and FV page examples (<https://support.microsoft.com/en-US/excel/functions/pv-function>,
/// <https://support.microsoft.com/en-US/excel/functions/fv-function>; VBA's <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/pv-function>, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/fv-function>): 500 a
/// month for 20 years at 8% is worth -59,777.15 now; 200 a month for
/// 10 months at 6% on top of 500, paid at the start, grows to
/// 2,581.40; 1,000 a month for 12 months at 12% to 12,682.50.
#[test]
fn pv_and_fv_match_microsofts_examples() {
    assert_eq!(cents(ok(pv, "PV", &[0.08 / 12.0, 240.0, 500.0])), -59777.15);
    assert_eq!(
        cents(ok(fv, "FV", &[0.06 / 12.0, 10.0, -200.0, -500.0, 1.0])),
        2581.40
    );
    assert_eq!(cents(ok(fv, "FV", &[0.12 / 12.0, 12.0, -1000.0])), 12682.50);
    // rate 0: plain sums
    assert_eq!(ok(pv, "PV", &[0.0, 10.0, -100.0, 50.0]), 950.0);
    assert_eq!(ok(fv, "FV", &[0.0, 10.0, -100.0, -50.0]), 1050.0);
    // PV and FV are each other's inverse
    let start = -1234.5;
    let end = ok(fv, "FV", &[0.004, 37.5, -20.0, start, 1.0]);
    close(
        ok(pv, "PV", &[0.004, 37.5, -20.0, end, 1.0]),
        start,
        1e-9,
        "PV(FV)",
    );
}

/// Excel's NPER page examples (<https://support.microsoft.com/en-US/excel/functions/nper-function>; VBA's
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/nper-function>): 100 a month at 12% a year from -1,000 to
/// 10,000 takes 59.67 months paid at the start, 60.08 at the end; to
/// 0, -9.58 (a negative number of periods).
#[test]
fn nper_matches_microsofts_examples() {
    let n = |args: &[f64]| ok(nper, "NPer", args);
    assert_eq!(cents(n(&[0.01, -100.0, -1000.0, 10000.0, 1.0])), 59.67);
    assert_eq!(cents(n(&[0.01, -100.0, -1000.0, 10000.0])), 60.08);
    assert_eq!(cents(n(&[0.01, -100.0, -1000.0])), -9.58);
    // rate 0: (pv + fv) over the payment
    assert_eq!(n(&[0.0, -100.0, 1000.0, -200.0]), 8.0);
    // the payment of the terms gives the terms back
    let p = ok(pmt, "Pmt", &[0.005, 123.0, 20000.0, -3000.0, 1.0]);
    close(
        n(&[0.005, p, 20000.0, -3000.0, 1.0]),
        123.0,
        1e-9,
        "NPer(Pmt)",
    );
    // 50 a period never pays off 1,000 at 10% (the interest is 100)
    let e = error(nper, "NPer", &[0.1, -50.0, 1000.0]);
    assert!(
        e.contains("NPer: no number of periods takes PV to FV"),
        "{e}"
    );
    let e = error(nper, "NPer", &[0.0, 0.0, 1000.0]);
    assert!(
        e.contains("NPer: argument Pmt must not be 0 when Rate is 0"),
        "{e}"
    );
    assert!(error(nper, "NPer", &[-1.0, -50.0, 1000.0]).contains("greater than -1"));
}

/// Excel's RATE page example (<https://support.microsoft.com/en-US/excel/functions/rate-function>; VBA's
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/rate-function>): 200 a month for 4 years repays 8,000 at 0.77%
/// a month (9.24% a year); Rate inverts Pmt, also for payments at the
/// start and a balloon, and from another guess.
#[test]
fn rate_matches_microsofts_example_and_inverts_pmt() {
    let r = ok(rate, "Rate", &[48.0, -200.0, 8000.0]);
    assert_eq!((r * 10000.0).round() / 100.0, 0.77);
    assert_eq!((r * 12.0 * 10000.0).round() / 100.0, 9.24);
    for (r0, n, pv0, fv0, ty) in [
        (0.005, 360.0, 250000.0, 0.0, 0.0),
        (0.08, 10.0, -5000.0, 20000.0, 1.0),
        (0.0125, 47.5, 18000.0, -4000.0, 0.0),
        (0.0, 12.0, 1200.0, 0.0, 0.0),
    ] {
        let p = ok(pmt, "Pmt", &[r0, n, pv0, fv0, ty]);
        for guess in [0.1, r0 + 0.02] {
            let got = ok(rate, "Rate", &[n, p, pv0, fv0, ty, guess]);
            close(got, r0, 1e-12, "Rate(Pmt)");
        }
    }
    // no rate makes receipts alone worth a receipt
    let e = error(rate, "Rate", &[10.0, 100.0, 1000.0]);
    assert!(e.contains("Rate: the iteration did not converge"), "{e}");
    assert!(error(rate, "Rate", &[0.0, -100.0, 1000.0]).contains("NPer must be greater than 0"));
    assert!(
        error(rate, "Rate", &[10.0, -100.0, 1000.0, 0.0, 0.0, -1.0])
            .contains("Guess must be greater than -1")
    );
}

fn flows(kind: Flows, values: &[f64], nums: &[f64]) -> Result<f64> {
    kind.eval(values, nums)
}

/// Excel's NPV page example (<https://support.microsoft.com/en-US/excel/functions/npv-function>; VBA's
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/npv-function>): -10,000 a year from now, then 3,000, 4,200 and
/// 6,800, at 10% are worth 1,188.44 — VBA discounts the first amount
/// by one period too, unlike numpy-financial's npv.
#[test]
fn npv_discounts_the_first_amount_one_period() {
    let v = [-10000.0, 3000.0, 4200.0, 6800.0];
    assert_eq!(cents(flows(Flows::Npv, &v, &[0.1]).unwrap()), 1188.44);
    // by the definition, Σ vᵢ / 1.1^(i+1)
    let by_hand: f64 = v
        .iter()
        .enumerate()
        .map(|(i, x)| x / 1.1f64.powi(i as i32 + 1))
        .sum();
    close(flows(Flows::Npv, &v, &[0.1]).unwrap(), by_hand, 1e-9, "NPV");
    assert_eq!(flows(Flows::Npv, &[100.0, 100.0], &[0.0]).unwrap(), 200.0);
    let e = flows(Flows::Npv, &[], &[0.1]).unwrap_err().to_string();
    assert!(
        e.contains("NPV: argument Values must hold at least one amount"),
        "{e}"
    );
    let e = flows(Flows::Npv, &v, &[-1.0]).unwrap_err().to_string();
    assert!(e.contains("NPV: argument Rate must not be -1"), "{e}");
}

/// Excel's IRR page examples (<https://support.microsoft.com/en-US/excel/functions/irr-function>; VBA's
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/irr-function>): -70,000 then 12,000, 15,000, 18,000, 21,000
/// return -2.1%; with 26,000 more, 8.7%; the first three from a guess
/// of -10%, -44.4%. NPV at the IRR of the VBA page's flows is 0.
#[test]
fn irr_matches_microsofts_examples() {
    let irr = |v: &[f64], guess: &[f64]| flows(Flows::Irr, v, guess).unwrap();
    let pct = |x: f64| (x * 1000.0).round() / 10.0;
    let four = [-70000.0, 12000.0, 15000.0, 18000.0, 21000.0];
    assert_eq!(pct(irr(&four, &[])), -2.1);
    let five = [-70000.0, 12000.0, 15000.0, 18000.0, 21000.0, 26000.0];
    assert_eq!(pct(irr(&five, &[])), 8.7);
    assert_eq!(pct(irr(&five[..3], &[-0.1])), -44.4);
    // the VBA page's own flows: NPV at the result is 0
    let vba = [-70000.0, 22000.0, 25000.0, 28000.0, 31000.0];
    let r = irr(&vba, &[0.1]);
    close(net_present_value(r, &vba), 0.0, 1e-6, "NPV(IRR)");
    // Microsoft: "at least one negative value … and one positive value"
    let e = flows(Flows::Irr, &[100.0, 200.0], &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("IRR: argument Values must hold at least one negative"),
        "{e}"
    );
    // -100 + 300x − 300x² has no real root: no rate to converge to
    let e = flows(Flows::Irr, &[-100.0, 300.0, -300.0], &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("IRR: the iteration did not converge"), "{e}");
}

/// Excel's MIRR page examples (<https://support.microsoft.com/en-US/excel/functions/mirr-function>; VBA's
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/mirr-function>): -120,000 then 39,000, 30,000, 21,000, 37,000,
/// 46,000 at 10% financing and 12% reinvestment give 12.6%; after
/// three years -4.8%; at 14% reinvestment 13.5%.
#[test]
fn mirr_matches_microsofts_examples() {
    let v = [-120000.0, 39000.0, 30000.0, 21000.0, 37000.0, 46000.0];
    let pct = |x: f64| (x * 1000.0).round() / 10.0;
    let mirr = |v: &[f64], f: f64, r: f64| flows(Flows::Mirr, v, &[f, r]).unwrap();
    assert_eq!(pct(mirr(&v, 0.1, 0.12)), 12.6);
    assert_eq!(pct(mirr(&v[..4], 0.1, 0.12)), -4.8);
    assert_eq!(pct(mirr(&v, 0.1, 0.14)), 13.5);
    let e = flows(Flows::Mirr, &[-1.0, -2.0], &[0.1, 0.1])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("MIRR: argument Values must hold at least one negative"),
        "{e}"
    );
}

/// Excel's DDB page examples (<https://support.microsoft.com/en-US/excel/functions/ddb-function>; VBA's
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ddb-function>): an asset of 2,400 with a salvage of 300 over 10
/// years depreciates 1.32 on its first day, 40.00 in its first month,
/// 480.00 in its first year, 306.00 in its second at a factor of 1.5,
/// 22.12 in its tenth.
#[test]
fn ddb_matches_microsofts_examples() {
    let d = |args: &[f64]| cents(ok(ddb, "DDB", args));
    assert_eq!(d(&[2400.0, 300.0, 3650.0, 1.0]), 1.32);
    assert_eq!(d(&[2400.0, 300.0, 120.0, 1.0, 2.0]), 40.0);
    assert_eq!(d(&[2400.0, 300.0, 10.0, 1.0, 2.0]), 480.0);
    assert_eq!(d(&[2400.0, 300.0, 10.0, 2.0, 1.5]), 306.0);
    assert_eq!(d(&[2400.0, 300.0, 10.0, 10.0]), 22.12);
}

/// DDB against the Excel page's formula (<https://support.microsoft.com/en-US/excel/functions/ddb-function>) taken one
/// period at a time (Min((cost − total so far)·factor/life, cost −
/// salvage − total so far)): equal every period, and the total never
/// passes cost − salvage (the book value never falls below the
/// salvage).
#[test]
fn ddb_follows_the_period_formula_and_stops_at_the_salvage() {
    for (cost, salvage, life, factor) in [
        (2400.0, 300.0, 10.0, 2.0),
        (10000.0, 2500.0, 5.0, 2.0),
        (10000.0, 4000.0, 8.0, 3.0),
        (5000.0, 0.0, 7.0, 1.5),
        (800.0, 700.0, 12.0, 2.0),
        (1e6, 1.0, 40.0, 2.5),
    ] {
        let mut total: f64 = 0.0;
        for p in 1..=(life as i32) {
            let expected = ((cost - total) * (factor / life))
                .min(cost - salvage - total)
                .max(0.0);
            let got = ok(ddb, "DDB", &[cost, salvage, life, p as f64, factor]);
            close(
                got,
                expected,
                1e-6,
                &format!("DDB({cost}, {salvage}, {life}, {p}, {factor})"),
            );
            total += got;
            assert!(
                total <= cost - salvage + 1e-6,
                "past the salvage at period {p}"
            );
        }
    }
    for (args, msg) in [
        (
            &[2400.0, 300.0, 0.0, 1.0][..],
            "DDB: argument Life must be greater than 0",
        ),
        (
            &[2400.0, 300.0, 10.0, 11.0][..],
            "DDB: argument Period (11) must not be greater than Life (10)",
        ),
        (
            &[2400.0, 300.0, 10.0, 0.0][..],
            "DDB: argument Period must be greater than 0",
        ),
        (
            &[2400.0, -1.0, 10.0, 1.0][..],
            "DDB: argument Salvage must not be negative",
        ),
        (
            &[2400.0, 300.0, 10.0, 1.0, 0.0][..],
            "DDB: argument Factor must be greater than 0",
        ),
    ] {
        let e = error(ddb, "DDB", args);
        assert!(e.contains(msg), "{e}");
    }
}

/// Excel's SLN and SYD page examples (<https://support.microsoft.com/en-US/excel/functions/sln-function>,
/// <https://support.microsoft.com/en-US/excel/functions/syd-function>; VBA's <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/sln-function>, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/syd-function>):
/// 30,000 with a salvage of 7,500 over 10 years depreciates 2,250 a
/// year by SLN, 4,090.91 in the first year and 409.09 in the tenth by
/// SYD. By hand: SYD's shares are life, life − 1, … over their sum,
/// and add up to cost − salvage, as SLN's do.
#[test]
fn sln_and_syd_match_microsofts_examples_and_the_formula() {
    assert_eq!(ok(sln, "SLN", &[30000.0, 7500.0, 10.0]), 2250.0);
    assert_eq!(
        cents(ok(syd, "SYD", &[30000.0, 7500.0, 10.0, 1.0])),
        4090.91
    );
    assert_eq!(
        cents(ok(syd, "SYD", &[30000.0, 7500.0, 10.0, 10.0])),
        409.09
    );
    for (cost, salvage, life) in [
        (30000.0, 7500.0, 10.0),
        (999.0, 0.0, 3.0),
        (5e5, 1234.0, 25.0),
    ] {
        let digits = life * (life + 1.0) / 2.0;
        let mut total = 0.0;
        for p in 1..=(life as i32) {
            let got = ok(syd, "SYD", &[cost, salvage, life, p as f64]);
            let share = (life - p as f64 + 1.0) / digits;
            close(got, (cost - salvage) * share, 1e-6, "SYD share");
            total += got;
        }
        close(total, cost - salvage, 1e-6, "SYD total");
        let line = ok(sln, "SLN", &[cost, salvage, life]);
        close(line * life, cost - salvage, 1e-6, "SLN total");
    }
    assert!(
        error(sln, "SLN", &[100.0, 10.0, 0.0])
            .contains("SLN: argument Life must be greater than 0")
    );
    assert!(error(syd, "SYD", &[100.0, 10.0, 5.0, 6.0]).contains("must not be greater than Life"));
    assert!(error(syd, "SYD", &[100.0, 10.0, 5.0, 0.0]).contains("Period must be greater than 0"));
}

/// The solver itself (Rate's and IRR's, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/rate-function>): a root
/// from either side, and giving up where there is none.
#[test]
fn solve_converges_or_gives_up() {
    // (1 + r)² = 1.21 → r = 0.1 from far on either side
    let f = |r: f64| ((1.0 + r) * (1.0 + r) - 1.21, 2.0 * (1.0 + r));
    close(solve(f, 5.0).unwrap(), 0.1, 1e-12, "from above");
    close(solve(f, -0.9).unwrap(), 0.1, 1e-12, "from below");
    // no root: gives up
    assert!(solve(|r: f64| (r * r + 1.0, 2.0 * r), 0.5).is_none());
}
