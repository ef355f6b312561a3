//! Row geometry. On arbitrary bytes every admitted layout is consistent
//! with the row's own header fields and every admitted variable-column
//! interval lies inside the row's data area. On rows built the way Jet
//! writes them (Jet4, and Jet3 with its jump table) the kernel recovers
//! exactly the intervals and null-mask bits that were written.
#![no_main]

use jet_kernels::Refusal;
use jet_kernels::var_cols::{
    RowLayout, jet3_layout, jet4_layout, null_mask_bit, var_interval, var_offsets,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn layout(row: &[u8], jet3: bool, has_var: bool) -> std::result::Result<RowLayout, Refusal> {
    if jet3 {
        jet3_layout(row, has_var)
    } else {
        jet4_layout(row, has_var)
    }
}

/// Naive null-mask read: bit `bit` of the mask, false past the mask.
fn naive_bit(row: &[u8], mask_start: usize, mask_len: usize, bit: usize) -> bool {
    let byte = bit / 8;
    byte < mask_len && (row[mask_start + byte] >> (bit % 8)) & 1 == 1
}

fn le16(row: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([row[at], row[at + 1]]))
}

/// Arbitrary bytes: whatever the kernel admits must be self-consistent.
fn check_garbage(row: &[u8], jet3: bool, has_var: bool) {
    let Ok(l) = layout(row, jet3, has_var) else {
        return;
    };
    let n = row.len();
    let num_cols = if jet3 {
        usize::from(row[0])
    } else {
        le16(row, 0)
    };
    let mask_len = num_cols.div_ceil(8);
    assert_eq!(l.num_cols, num_cols);
    assert_eq!(l.null_mask, n - mask_len..n);
    assert_eq!(l.fixed_start, if jet3 { 1 } else { 2 });
    assert!(l.fixed_start <= l.data_end && l.data_end <= l.null_mask.start);
    let mask_start = l.null_mask.start;
    if !has_var {
        assert_eq!(l.var_count, 0);
        assert_eq!(l.data_end, mask_start);
    } else if jet3 {
        assert_eq!(l.var_count, usize::from(row[mask_start - 1]));
        assert!(l.data_end < mask_start - 1);
    } else {
        assert_eq!(l.var_count, le16(row, mask_start - 2));
        assert_eq!(l.data_end, mask_start - 2 - 2 * (l.var_count + 1));
    }

    let mut offs = vec![0u16; l.var_count + 1];
    let res = var_offsets(row, &l, &mut offs);
    if !has_var {
        assert_eq!(res, Ok(0));
    } else if n <= 16384 {
        // the layout admitted the offset table, so every entry is readable
        assert_eq!(res, Ok(l.var_count + 1));
        let mut short = vec![0u16; l.var_count];
        assert_eq!(var_offsets(row, &l, &mut short), Err(Refusal::BadCount));
    }
    if has_var && !jet3 && res.is_ok() {
        for (i, &o) in offs.iter().enumerate() {
            assert_eq!(
                usize::from(o),
                le16(row, mask_start - 4 - 2 * i),
                "entry {i}"
            );
        }
    }
    if res.is_ok() {
        for v in 0..l.var_count + 2 {
            match var_interval(&offs, &l, v) {
                Ok(r) => {
                    assert!(v < l.var_count);
                    assert_eq!(r, usize::from(offs[v])..usize::from(offs[v + 1]));
                    assert!(l.fixed_start <= r.start && r.start <= r.end);
                    assert!(r.end <= l.data_end && r.end <= n);
                }
                Err(Refusal::BadCount) => assert!(v >= l.var_count),
                Err(Refusal::Disorder) => assert!(offs[v + 1] < offs[v]),
                Err(Refusal::OutOfBounds) => assert!(
                    usize::from(offs[v]) < l.fixed_start || usize::from(offs[v + 1]) > l.data_end
                ),
                Err(other) => panic!("unexpected refusal {other:?}"),
            }
        }
    }
    for bit in (0..num_cols + 16).chain([usize::MAX - 7, usize::MAX]) {
        assert_eq!(
            null_mask_bit(row, &l, bit),
            naive_bit(row, mask_start, mask_len, bit),
            "bit {bit}"
        );
    }
}

/// The parts of a row as generated from the fuzz input.
struct Parts<'a> {
    fixed: &'a [u8],
    vars: Vec<&'a [u8]>,
    mask: Vec<u8>,
}

fn parts<'a>(
    u: &mut Unstructured<'a>,
    num_cols: usize,
    max_vars: usize,
    budget: usize,
) -> Result<Parts<'a>> {
    let fixed_len = u.int_in_range(0usize..=40)?.min(u.len());
    let fixed = u.bytes(fixed_len)?;
    let var_count = u.int_in_range(0..=max_vars)?;
    let mut vars = Vec::with_capacity(var_count);
    let mut total = 0usize;
    for _ in 0..var_count {
        let want = u.int_in_range(0usize..=600)?.min(budget - total);
        // value bytes: from the input while it lasts, then zeros
        let take = want.min(u.len());
        let mut v = u.bytes(take)?;
        if take < want {
            v = &ZEROS[..want];
        }
        total += v.len();
        vars.push(v);
    }
    let mut mask = vec![0u8; num_cols.div_ceil(8)];
    u.fill_buffer(&mut mask)?;
    Ok(Parts { fixed, vars, mask })
}

static ZEROS: [u8; 4096] = [0; 4096];

/// Lays out the data area (num_cols header already in `row`); returns the
/// variable offsets including `eod` and the true intervals.
fn data_area(row: &mut Vec<u8>, p: &Parts<'_>) -> (Vec<usize>, Vec<std::ops::Range<usize>>) {
    row.extend_from_slice(p.fixed);
    let mut offs = Vec::new();
    let mut iv = Vec::new();
    for v in &p.vars {
        let s = row.len();
        row.extend_from_slice(v);
        offs.push(s);
        iv.push(s..row.len());
    }
    offs.push(row.len());
    (offs, iv)
}

fn check_built(
    row: &[u8],
    jet3: bool,
    has_var: bool,
    p: &Parts<'_>,
    iv: &[std::ops::Range<usize>],
    eod: usize,
) {
    let l = layout(row, jet3, has_var).expect("a well-formed row is admitted");
    let mask_start = row.len() - p.mask.len();
    assert_eq!(l.null_mask, mask_start..row.len());
    assert_eq!(l.var_count, p.vars.len());
    assert_eq!(l.data_end, eod);
    let mut offs = vec![0u16; l.var_count + 1];
    let got = var_offsets(row, &l, &mut offs).expect("offsets of a well-formed row");
    assert_eq!(got, if has_var { l.var_count + 1 } else { 0 });
    for (v, want) in iv.iter().enumerate() {
        assert_eq!(var_interval(&offs, &l, v), Ok(want.clone()), "var {v}");
    }
    assert_eq!(var_interval(&offs, &l, iv.len()), Err(Refusal::BadCount));
    for bit in 0..l.num_cols + 16 {
        let byte = bit / 8;
        let want = byte < p.mask.len() && (p.mask[byte] >> (bit % 8)) & 1 == 1;
        assert_eq!(null_mask_bit(row, &l, bit), want, "bit {bit}");
    }
    // and the generic invariants hold on it too
    check_garbage(row, jet3, has_var);
}

fn built_jet4(u: &mut Unstructured<'_>) -> Result<()> {
    let num_cols = u.int_in_range(0usize..=700)?;
    let has_var = u.arbitrary::<bool>()?;
    let p = parts(u, num_cols, if has_var { 64 } else { 0 }, 3000)?;
    let mut row = u16::try_from(num_cols).unwrap().to_le_bytes().to_vec();
    let (offs, iv) = data_area(&mut row, &p);
    let eod = row.len();
    if has_var {
        // eod, then the offsets from last to first, then the count
        for o in offs.iter().rev() {
            row.extend_from_slice(&u16::try_from(*o).unwrap().to_le_bytes());
        }
        row.extend_from_slice(&u16::try_from(p.vars.len()).unwrap().to_le_bytes());
    }
    row.extend_from_slice(&p.mask);
    check_built(&row, false, has_var, &p, &iv, eod);
    Ok(())
}

fn built_jet3(u: &mut Unstructured<'_>) -> Result<()> {
    let num_cols = usize::from(u.arbitrary::<u8>()?);
    let has_var = u.arbitrary::<bool>()?;
    // at most 200 variable columns: the offset table, count, mask and jump
    // table then span less than 256 bytes, so at most one jump entry can be
    // the trailing dummy
    let p = parts(u, num_cols, if has_var { 200 } else { 0 }, 1500)?;
    let mut row = vec![u8::try_from(num_cols).unwrap()];
    let (offs, iv) = data_area(&mut row, &p);
    let eod = row.len();
    if has_var {
        let tail = offs.len() + 1 + p.mask.len();
        // the jump table has (total_len - 1) / 256 entries, and is itself
        // part of the total: take the least fixed point
        let mut jumps = 0usize;
        loop {
            let need = (eod + tail + jumps - 1) / 256;
            if need == jumps {
                break;
            }
            jumps = need;
        }
        let dummy: u8 = u.arbitrary()?;
        // entry k-1: index of the first offset at or past 256 * k
        let table: Vec<u8> = (1..=jumps)
            .map(|k| {
                offs.iter()
                    .position(|&o| o >= 256 * k)
                    .map_or(dummy, |i| u8::try_from(i).unwrap())
            })
            .collect();
        for o in offs.iter().rev() {
            row.push(u8::try_from(o % 256).unwrap());
        }
        for j in table.iter().rev() {
            row.push(*j);
        }
        row.push(u8::try_from(p.vars.len()).unwrap());
        row.extend_from_slice(&p.mask);
        assert_eq!(row.len(), eod + tail + jumps);
    } else {
        row.extend_from_slice(&p.mask);
    }
    check_built(&row, true, has_var, &p, &iv, eod);
    Ok(())
}

fn run(data: &[u8]) -> Result<()> {
    let Some((&mode, rest)) = data.split_first() else {
        return Ok(());
    };
    match mode % 4 {
        0 | 1 => {
            check_garbage(rest, mode & 4 != 0, mode & 8 != 0);
            Ok(())
        }
        2 => built_jet4(&mut Unstructured::new(rest)),
        _ => built_jet3(&mut Unstructured::new(rest)),
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
