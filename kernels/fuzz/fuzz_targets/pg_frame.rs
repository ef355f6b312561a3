//! PostgreSQL frontend message metering: any bytes, split anywhere, give
//! `Ok` or a refusal, never a panic; a split never changes the outcome;
//! the message body checks answer for any bytes.
#![no_main]
use jet_kernels::pg_frame::{Meter, startup_well_formed, well_formed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, stream)) = data.split_first() else {
        return;
    };
    // the body validators are total over any bytes
    let _ = well_formed(cut, stream);
    let _ = startup_well_formed(stream);
    let limit = u32::from(cut) * 4;
    let mut whole = Meter::new(limit);
    let a = whole.feed(stream);
    let mut split = Meter::new(limit);
    let at = usize::from(cut).min(stream.len());
    let b = split.feed(&stream[..at]).and_then(|()| split.feed(&stream[at..]));
    assert_eq!(a, b);
    if a.is_ok() {
        assert_eq!(whole.at_boundary(), split.at_boundary());
    }
});
