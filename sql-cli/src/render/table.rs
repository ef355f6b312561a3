//! The table view: cells laid out in a box that fits the terminal. When
//! the natural table is wider than the screen, the widest columns are
//! narrowed first (long cells cut with `…`), then columns are elided from
//! the middle (a `…` column stands for them, the footer says how many); in
//! expanded display (`\x`) each row is a block of `column | value` lines.

use super::cell::{Align, align_of, cell_text, escape_text};
use super::{Expanded, View};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::Schema;
use unicode_width::UnicodeWidthStr;

/// A column is not narrowed below this many characters or its header's
/// width (or its natural width, if smaller) before columns are elided.
const MIN_COLUMN: usize = 8;

/// What rendering left out, for the footer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Omitted {
    /// Columns not shown.
    pub columns: usize,
    /// Cells cut with `…`.
    pub cut: usize,
    /// Whether the expanded layout was used.
    pub expanded: bool,
}

/// The display width of `s` (wide characters count twice).
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `w` display columns, ending with `…` when cut.
pub fn cut(s: &str, w: usize) -> (String, bool) {
    if width(s) <= w {
        return (s.to_string(), false);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + cw + 1 > w {
            break;
        }
        used += cw;
        out.push(c);
    }
    if w > 0 {
        out.push('…');
    }
    (out, true)
}

fn pad(s: &str, w: usize, align: Align) -> String {
    let fill = " ".repeat(w.saturating_sub(width(s)));
    match align {
        Align::Left => format!("{s}{fill}"),
        Align::Right => format!("{fill}{s}"),
    }
}

/// Width of a boxed table with these column widths.
fn boxed(widths: &[usize]) -> usize {
    widths.iter().map(|w| w + 3).sum::<usize>() + 1
}

/// Which columns show, and how wide, so the box fits `limit`: `None`
/// entries stand for the elided run (shown as one `…` column).
fn fit(natural: &[usize], headers: &[usize], limit: usize) -> Vec<Option<(usize, usize)>> {
    let mut widths = natural.to_vec();
    let floor: Vec<usize> = natural
        .iter()
        .zip(headers)
        .map(|(&n, &h)| n.min(h.max(MIN_COLUMN)))
        .collect();
    // narrow the widest column that can still give, one character at a time
    while boxed(&widths) > limit {
        let Some((i, _)) = widths
            .iter()
            .enumerate()
            .filter(|(i, w)| **w > floor[*i])
            .max_by_key(|(_, w)| **w)
        else {
            break;
        };
        widths[i] -= 1;
    }
    let all: Vec<Option<(usize, usize)>> = widths.iter().copied().enumerate().map(Some).collect();
    if boxed(&widths) <= limit || widths.len() <= 1 {
        return all;
    }
    // elide from the middle: keep a prefix and a suffix, alternately
    // growing them while the box (with a 1-wide `…` column) still fits
    let n = widths.len();
    let (mut front, mut back) = (1usize, 0usize);
    let total = |f: usize, b: usize| {
        let mut w: Vec<usize> = widths[..f].to_vec();
        w.push(1);
        w.extend_from_slice(&widths[n - b..]);
        boxed(&w)
    };
    loop {
        let grow_back = back < front;
        let (f, b) = if grow_back {
            (front, back + 1)
        } else {
            (front + 1, back)
        };
        if f + b >= n || total(f, b) > limit {
            break;
        }
        front = f;
        back = b;
    }
    let mut out: Vec<Option<(usize, usize)>> = (0..front).map(|i| Some((i, widths[i]))).collect();
    out.push(None);
    out.extend((n - back..n).map(|i| Some((i, widths[i]))));
    out
}

/// The rows of `batches` as cell texts.
fn cells(batches: &[RecordBatch], null: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            rows.push(
                b.columns()
                    .iter()
                    .map(|c| cell_text(c.as_ref(), r, null))
                    .collect(),
            );
        }
    }
    rows
}

/// Renders `batches` (of `schema`) as the table view.
pub fn render(schema: &Schema, batches: &[RecordBatch], view: &View) -> (String, Omitted) {
    let headers: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| escape_text(f.name()))
        .collect();
    let aligns: Vec<Align> = schema
        .fields()
        .iter()
        .map(|f| align_of(f.data_type()))
        .collect();
    let rows = cells(batches, &view.null);
    let natural: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| width(&r[i]))
                .chain([width(&headers[i])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let too_wide = view.width.is_some_and(|w| boxed(&natural) > w);
    let expanded = match view.expanded {
        Expanded::On => true,
        Expanded::Off => false,
        Expanded::Auto => too_wide && !rows.is_empty(),
    };
    if expanded {
        return render_expanded(&headers, &rows, view.width);
    }
    let layout = match view.width {
        Some(w) if too_wide => {
            let header_widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
            fit(&natural, &header_widths, w)
        }
        _ => natural.iter().copied().enumerate().map(Some).collect(),
    };
    let mut omitted = Omitted {
        columns: natural.len() - layout.iter().flatten().count(),
        ..Omitted::default()
    };
    let rule = {
        let mut s = String::from("+");
        for col in &layout {
            let w = col.map_or(1, |(_, w)| w);
            s.push_str(&"-".repeat(w + 2));
            s.push('+');
        }
        s
    };
    let line = |texts: &mut dyn FnMut(usize, usize) -> (String, Align)| {
        let mut s = String::from("|");
        for col in &layout {
            match col {
                Some((i, w)) => {
                    let (t, a) = texts(*i, *w);
                    s.push(' ');
                    s.push_str(&pad(&t, *w, a));
                    s.push_str(" |");
                }
                None => s.push_str(" … |"),
            }
        }
        s
    };
    let mut out = String::new();
    out.push_str(&rule);
    out.push('\n');
    out.push_str(&line(&mut |i, w| (cut(&headers[i], w).0, Align::Left)));
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    for r in &rows {
        let mut cut_here = 0;
        let text = line(&mut |i, w| {
            let (t, was_cut) = cut(&r[i], w);
            cut_here += usize::from(was_cut);
            (t, aligns[i])
        });
        omitted.cut += cut_here;
        out.push_str(&text);
        out.push('\n');
    }
    if !rows.is_empty() {
        out.push_str(&rule);
        out.push('\n');
    }
    (out, omitted)
}

/// One block per row: `-[ RECORD n ]-` then `column | value` lines, values
/// cut to the width left beside the names.
fn render_expanded(
    headers: &[String],
    rows: &[Vec<String>],
    limit: Option<usize>,
) -> (String, Omitted) {
    let name_w = headers.iter().map(|h| width(h)).max().unwrap_or(0);
    let value_w = limit.map(|w| w.saturating_sub(name_w + 3).max(MIN_COLUMN));
    let mut omitted = Omitted {
        expanded: true,
        ..Omitted::default()
    };
    let mut out = String::new();
    for (n, r) in rows.iter().enumerate() {
        let title = format!("-[ RECORD {} ]", n + 1);
        let rule_w = limit
            .unwrap_or(name_w + 20)
            .min(name_w + 3 + value_w.unwrap_or(40));
        out.push_str(&title);
        out.push_str(&"-".repeat(rule_w.saturating_sub(width(&title)).max(1)));
        out.push('\n');
        for (h, v) in headers.iter().zip(r) {
            let v = match value_w {
                Some(w) => {
                    let (t, was_cut) = cut(v, w);
                    omitted.cut += usize::from(was_cut);
                    t
                }
                None => v.clone(),
            };
            out.push_str(&pad(h, name_w, Align::Left));
            out.push_str(" | ");
            out.push_str(&v);
            out.push('\n');
        }
    }
    (out, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Int32Array, StringArray};
    use std::sync::Arc;

    fn batch() -> RecordBatch {
        RecordBatch::try_from_iter([
            (
                "id",
                Arc::new(Int32Array::from(vec![Some(7), None])) as ArrayRef,
            ),
            (
                "note",
                Arc::new(StringArray::from(vec![
                    Some("line one\r\nline two"),
                    Some(""),
                ])) as ArrayRef,
            ),
        ])
        .unwrap()
    }

    fn view(width: Option<usize>, expanded: Expanded) -> View {
        View {
            null: "NULL".into(),
            expanded,
            width,
        }
    }

    #[test]
    fn natural_table_right_aligns_numbers_and_shows_null() {
        let b = batch();
        let (t, o) = render(
            &b.schema(),
            std::slice::from_ref(&b),
            &view(None, Expanded::Auto),
        );
        assert_eq!(
            t,
            "+------+-------------------+\n\
             | id   | note              |\n\
             +------+-------------------+\n\
             |    7 | line one↵line two |\n\
             | NULL |                   |\n\
             +------+-------------------+\n"
        );
        assert_eq!(o, Omitted::default());
    }

    #[test]
    fn narrow_screens_cut_cells_then_elide_columns() {
        let b = batch();
        // 1 + (4+3) + (17+3) = 28 natural; at 22 the note column narrows
        let (t, o) = render(
            &b.schema(),
            std::slice::from_ref(&b),
            &view(Some(22), Expanded::Off),
        );
        assert!(t.lines().all(|l| width(l) <= 22), "{t}");
        assert!(t.contains("| line one↵l… |"), "{t}");
        assert_eq!(o.cut, 1);
        assert_eq!(o.columns, 0);
        // twelve wide columns on 60 characters: some elided, box fits
        let cols: Vec<(String, ArrayRef)> = (0..12)
            .map(|i| {
                (
                    format!("column_{i:02}"),
                    Arc::new(StringArray::from(vec!["x".repeat(30)])) as ArrayRef,
                )
            })
            .collect();
        let wide = RecordBatch::try_from_iter(cols).unwrap();
        let (t, o) = render(
            &wide.schema(),
            std::slice::from_ref(&wide),
            &view(Some(60), Expanded::Off),
        );
        assert!(t.lines().all(|l| width(l) <= 60), "{t}");
        assert!(o.columns > 0 && o.columns < 12, "{o:?}");
        assert!(t.contains("| … |"), "{t}");
        assert!(t.contains("column_00") && t.contains("column_11"), "{t}");
    }

    #[test]
    fn expanded_display_when_asked_or_too_wide() {
        let b = batch();
        let (t, o) = render(
            &b.schema(),
            std::slice::from_ref(&b),
            &view(None, Expanded::On),
        );
        assert!(o.expanded);
        assert!(t.starts_with("-[ RECORD 1 ]"), "{t}");
        assert!(t.contains("id   | 7\nnote | line one↵line two\n"), "{t}");
        assert!(t.contains("id   | NULL\n"), "{t}");
        // auto: expanded only when the table does not fit
        let (_, o) = render(
            &b.schema(),
            std::slice::from_ref(&b),
            &view(Some(80), Expanded::Auto),
        );
        assert!(!o.expanded);
        let (t, o) = render(
            &b.schema(),
            std::slice::from_ref(&b),
            &view(Some(20), Expanded::Auto),
        );
        assert!(o.expanded, "{t}");
    }

    #[test]
    fn cutting_respects_wide_characters() {
        assert_eq!(cut("日本語テキスト", 7), ("日本語…".to_string(), true));
        assert_eq!(cut("abc", 3), ("abc".to_string(), false));
        assert_eq!(cut("abcd", 3), ("ab…".to_string(), true));
    }
}
