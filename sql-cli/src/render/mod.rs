//! How query results look in the table format: [`cell`] turns each value
//! into the text Access would show, [`table`] lays the cells out to fit
//! the terminal (or in expanded display), [`pager`] sends long output
//! through `$PAGER`.

pub mod cell;
pub mod pager;
pub mod table;

/// Expanded display (`\x`): one block per row instead of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expanded {
    /// Always a table.
    Off,
    /// Always expanded.
    On,
    /// Expanded when the table would be wider than the terminal.
    Auto,
}

impl Expanded {
    /// The word `\x` shows for this setting.
    pub fn name(self) -> &'static str {
        match self {
            Expanded::Off => "off",
            Expanded::On => "on",
            Expanded::Auto => "auto",
        }
    }
}

/// The table view's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// What a NULL shows as (`\null`).
    pub null: String,
    /// Expanded display (`\x`).
    pub expanded: Expanded,
    /// The width to fit (the terminal's), or `None` for no limit.
    pub width: Option<usize>,
}

impl Default for View {
    fn default() -> Self {
        View {
            null: "NULL".into(),
            expanded: Expanded::Off,
            width: None,
        }
    }
}

/// The terminal's size as (columns, rows): `$COLUMNS` / `$LINES` when set,
/// else what the terminal on standard output reports; `None` when standard
/// output is not a terminal and nothing is set.
pub fn terminal_size() -> (Option<usize>, Option<usize>) {
    let env = |v: &str| {
        std::env::var(v)
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    // a terminal that reports 0 (a fresh pseudo-terminal) has no size
    let term = console::Term::stdout()
        .size_checked()
        .filter(|&(rows, cols)| rows > 0 && cols > 0);
    (
        env("COLUMNS").or(term.map(|(_, c)| usize::from(c))),
        env("LINES").or(term.map(|(r, _)| usize::from(r))),
    )
}
