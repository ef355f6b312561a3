//! Row geometry over arbitrary rows: never panics, and every admitted
//! variable-column interval lies inside the row's data area.
#![no_main]
use jet_kernels::var_cols::{jet3_layout, jet4_layout, null_mask_bit, var_interval, var_offsets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, row)) = data.split_first() else { return };
    let has_var = mode & 1 != 0;
    let l = if mode & 2 != 0 { jet3_layout(row, has_var) } else { jet4_layout(row, has_var) };
    let Ok(l) = l else { return };
    assert!(l.data_end <= l.null_mask.start && l.null_mask.end == row.len());
    let mut offs = vec![0u16; l.var_count + 1];
    if var_offsets(row, &l, &mut offs).is_ok() {
        for v in 0..=l.var_count {
            if let Ok(r) = var_interval(&offs, &l, v) {
                assert!(r.start <= r.end && r.end <= l.data_end);
            }
        }
    }
    for b in 0..l.num_cols + 8 {
        let _ = null_mask_bit(row, &l, b);
    }
});
