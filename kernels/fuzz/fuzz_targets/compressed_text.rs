//! Compressed-text runs: total, and their code units equal a byte-at-a-time
//! decoder's.
#![no_main]
use jet_kernels::compressed_text::{Mode, Runs, compressed_body};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let body = compressed_body(data).unwrap_or(data);
    let mut got = Vec::new();
    for (mode, run) in Runs::new(body) {
        match mode {
            Mode::OneByte => got.extend(run.iter().map(|&b| u16::from(b))),
            Mode::TwoByte => {
                assert_eq!(run.len() % 2, 0);
                got.extend(run.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])));
            }
        }
    }
    let mut want = Vec::new();
    let (mut one_byte, mut i) = (true, 0);
    while i < body.len() {
        if body[i] == 0 {
            one_byte = !one_byte;
            i += 1;
        } else if one_byte {
            want.push(u16::from(body[i]));
            i += 1;
        } else if i + 1 < body.len() {
            want.push(u16::from_le_bytes([body[i], body[i + 1]]));
            i += 2;
        } else {
            break;
        }
    }
    assert_eq!(got, want);
});
