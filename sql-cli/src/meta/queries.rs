//! `\dv` (the saved queries of every open database) and `\d QUERY` (one
//! query's SQL text, parameters and output columns).

use super::{find_named, table};
use crate::session::OpenDb;
use crate::shell::Shell;
use jet_provider::access::unrunnable::UnrunnableQuery;
use jet_storage::SavedQuery;

/// A parameter's name as Access SQL writes it: in brackets.
fn bracketed(name: &str) -> String {
    if name.starts_with('[') {
        name.to_string()
    } else {
        format!("[{name}]")
    }
}

/// How a saved query of `kind` is used from jetsql.
fn use_of(q: &SavedQuery) -> &'static str {
    use jet_storage::QueryKind as K;
    match q.kind {
        K::Select | K::Union | K::Crosstab => "view",
        K::Append | K::Update | K::Delete | K::MakeTable | K::DataDefinition => "EXECUTE",
        K::PassThrough | K::Unknown(_) => "not run",
    }
}

/// `\dv` (`\dv+` with `hidden`): one line per saved query of every open
/// database: its kind, how jetsql runs it and its declared parameters.
pub fn list_queries(shell: &Shell, hidden: bool) -> Result<String, String> {
    let mut rows = Vec::new();
    for d in &shell.dbs {
        let db = d.db()?;
        let queries = db.queries().map_err(|e| format!("{}: {e}", d.name))?;
        for q in queries.iter().filter(|q| hidden || !q.hidden) {
            let params: Vec<String> = q.parameters.iter().map(|(n, _)| bracketed(n)).collect();
            let mut row = vec![
                d.name.clone(),
                q.name.clone(),
                format!("{} query", q.kind),
                use_of(q).to_string(),
                params.join(", "),
            ];
            if hidden {
                row.push(if q.hidden { "yes" } else { "" }.to_string());
            }
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return Ok("No saved queries.\n".into());
    }
    let mut headers = vec!["database", "query", "kind", "runs as", "parameters"];
    if hidden {
        headers.push("hidden");
    }
    table(&headers, &rows)
}

/// `\d QUERY`: a saved query's kind, SQL text, declared parameters and,
/// for a query that returns rows, its output columns (or why it cannot be
/// run as it stands).
pub fn describe_query(shell: &Shell, name: &str) -> Result<String, String> {
    let queries_of = |d: &OpenDb| Ok(d.db()?.queries().unwrap_or_default());
    let Some((i, q)) = find_named(&shell.dbs, name, queries_of, |q: &SavedQuery| &q.name)? else {
        return Err(format!(
            "no table or saved query {name:?} in the open databases (\\d lists them)"
        ));
    };
    let d = &shell.dbs[i];
    let mut out = format!(
        "Saved query \"{}\" in {} ({} query{}, runs as {})\n",
        q.name,
        d.name,
        q.kind,
        if q.hidden { ", hidden" } else { "" },
        use_of(&q)
    );
    if !q.parameters.is_empty() {
        let rows: Vec<Vec<String>> = q
            .parameters
            .iter()
            .map(|(n, t)| vec![bracketed(n), t.clone()])
            .collect();
        out.push_str("Parameters:\n");
        out.push_str(&table(&["parameter", "type"], &rows)?);
    }
    match q.checked_sql() {
        Ok(sql) => {
            out.push_str("SQL:\n");
            for line in sql.lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
        }
        Err(e) => out.push_str(&format!("SQL: cannot be rebuilt: {e}\n")),
    }
    if !q.kind.is_select_like() {
        return Ok(out);
    }
    let ctx = shell.session.context().clone();
    let (catalog, query) = (d.name.clone(), q.name.clone());
    let provider = shell.block_on(async move {
        let schema = ctx.catalog(&catalog)?.schema("public")?;
        schema.table(&query).await.ok().flatten()
    });
    match provider {
        Some(p) => {
            if let Some(u) = (p.as_ref() as &dyn std::any::Any).downcast_ref::<UnrunnableQuery>() {
                out.push_str(&format!(
                    "Columns: unknown: {}\n",
                    u.error()
                        .to_string()
                        .trim_start_matches("Error during planning: ")
                ));
            } else {
                let rows: Vec<Vec<String>> = p
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| vec![f.name().clone(), f.data_type().to_string()])
                    .collect();
                out.push_str("Columns:\n");
                out.push_str(&table(&["column", "arrow type"], &rows)?);
            }
        }
        None => out.push_str("Columns: unknown (the query is not listed as a view)\n"),
    }
    Ok(out)
}
