//! The HTML of a report page (maud templates: every text is escaped) with its inline CSS,
//! script, plots and data.
//!
//! The page carries a Content-Security-Policy that allows only its own script and style
//! (by sha256) and `data:` images: even a text that escaped escaping could not run.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;
use base64::Engine as _;
use factpico::Report;
use maud::{html, Markup, PreEscaped};
use sha2::Digest;

use super::gather::{Histogram, Selection, BINS, FAILED_ROWS};
use super::payload::{self, Column};
use super::texts::Texts;
use super::MetaEval;
use crate::summary::Summary;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// Everything a page shows.
pub(crate) struct Page<'a> {
    pub title: &'a str,
    pub scores_path: &'a Path,
    pub input_path: Option<&'a Path>,
    /// The rows the page holds (every row, or a [`Selection`]), in file order.
    pub reports: &'a [Report],
    /// Rows in the score file.
    pub total: usize,
    /// Which rows the page holds, when not every row.
    pub selection: Option<&'a Selection>,
    /// The score file's provenance, when it has one.
    pub provenance: Option<&'a factpico::Provenance>,
    pub texts: Option<&'a Texts>,
    pub columns: &'a [Column],
    pub primary: &'a [String],
    pub summary: &'a Summary,
    /// One histogram per primary column, over every row of the file.
    pub histograms: &'a [Histogram],
    /// The systems of every row (`None`: rows without one), sorted.
    pub systems: &'a BTreeSet<Option<String>>,
    pub meta: Option<&'a MetaEval>,
}

fn csp_hash(text: &str) -> String {
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes())))
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Renders the whole page.
///
/// # Errors
/// A row payload that cannot be serialised (not expected), a plot that cannot be drawn.
pub(crate) fn render(p: &Page<'_>) -> Result<String> {
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(JS),
        csp_hash(CSS)
    );
    let index = payload::embed(&payload::index(p.reports, p.columns))?;
    let provenance = p.provenance;
    let engine = provenance.map_or("factpico (unknown version)", |v| v.engine.as_str());
    let n_rows = p.total;
    // Most of the page is the row payloads; reserve to avoid regrowing.
    let mut body = String::with_capacity(64 * 1024 + p.reports.len() * 4096);
    body.push_str("<!DOCTYPE html><html lang=\"en\"><head>");
    let head = html! {
        meta charset="utf-8";
        meta http-equiv="Content-Security-Policy" content=(csp);
        meta name="referrer" content="no-referrer";
        meta name="viewport" content="width=device-width, initial-scale=1";
        meta name="generator" content={ "factpico report " (env!("CARGO_PKG_VERSION")) };
        title { (p.title) " — factpico report" }
        style { (PreEscaped(CSS)) }
    };
    body.push_str(&head.into_string());
    body.push_str("</head><body>");
    body.push_str(&top(p, n_rows, engine).into_string());
    body.push_str("<main><div id=\"fp-listview\">");
    body.push_str(&overview(p).into_string());
    body.push_str(&list().into_string());
    body.push_str(&more(p, provenance).into_string());
    body.push_str("</div><section id=\"fp-view\" hidden></section></main>");
    body.push_str(&html! { script type="application/json" id="fp-index" { (PreEscaped(index)) } }.into_string());
    // The script runs as soon as the index is parsed: the list is drawn before the (large)
    // row data that follows has arrived, so the first render does not wait for the file.
    body.push_str(&html! { script { (PreEscaped(JS)) } }.into_string());
    if let Some(t) = p.texts {
        for (k, s) in t.sources.iter().enumerate() {
            let id = format!("fp-s-{k}");
            body.push_str(&html! { script type="application/json" id=(id) { (PreEscaped(payload::embed(s)?)) } }.into_string());
        }
    }
    for (i, r) in p.reports.iter().enumerate() {
        let (source, summary) = match p.texts.and_then(|t| t.rows[i].as_ref()) {
            Some((k, sum)) => (Some((*k, p.texts.map_or("", |t| t.sources[*k].as_str()))), Some(sum.as_str())),
            None => (None, None),
        };
        let v = payload::row(r, source, summary);
        let id = format!("fp-r-{i}");
        body.push_str(&html! { script type="application/json" id=(id) { (PreEscaped(payload::embed(&v)?)) } }.into_string());
    }
    body.push_str("</body></html>\n");
    Ok(body)
}

fn top(p: &Page<'_>, n_rows: usize, engine: &str) -> Markup {
    html! {
        header.fp-top {
            h1 { (p.title) }
            div.fp-muted {
                (n_rows) " rows"
                @if p.selection.is_some() { " (the list holds " (p.reports.len()) ")" }
                " · scores " code { (file_name(p.scores_path)) }
                @match p.input_path {
                    Some(i) => { " · texts from " code { (file_name(i)) } " (ids and input_sha256 verified)" }
                    None => { " · no texts (run with --input)" }
                }
                " · scored by " (engine)
                " · keys: j/k next/previous row, Esc back to the list"
            }
        }
    }
}

fn overview(p: &Page<'_>) -> Markup {
    let (header, rows) = p.summary.table();
    let dists = distributions(p);
    html! {
        section #fp-overview {
            @if let Some(sel) = p.selection {
                p.fp-error #fp-selection {
                    "This file has " (sel.total) " rows, more than --max-rows " (sel.max_rows) ". The per-system table, the histograms"
                    @if p.meta.is_some() { " and the meta-evaluation" }
                    " count every row; the list and the row views hold " (p.reports.len()) " of them: the first " (sel.first) " rows, "
                    @if sel.worst_per_system > 0 {
                        "the " (sel.worst_per_system) " worst-scoring rows of each primary column per system and over all rows, "
                    } @else {
                        "the " (sel.worst_all) " worst-scoring rows of each primary column over all rows (too many systems for per-system picks), "
                    }
                    "and the first " (sel.failed) " rows with errors or skipped (at most " (FAILED_ROWS) "). "
                    "Worst: lowest where higher is better, highest where lower is better. Filters, sorting and histogram clicks list held rows only. "
                    "Rerun with --max-rows " (sel.total) " to hold every row (memory grows with it)."
                }
            }
            h2 { "Per-system summary" }
            div.fp-tablewrap {
                table.fp-table #fp-summary-table {
                    caption { "mean ± sd per system, as printed by " code { "factpico score" } }
                    thead { tr { @for h in &header { th { (h) } } } }
                    tbody {
                        @for r in &rows {
                            tr { @for (k, c) in r.iter().enumerate() { td class=[(k > 0).then_some("fp-num")] { (c) } } }
                        }
                    }
                }
            }
            @if !p.primary.is_empty() {
                h2 { "Distributions" }
                p.fp-muted { "Histograms of each primary column per system (20 bins over the column's range); click a bar to list its rows." }
                div.fp-dists { @for d in &dists { (d) } }
            }
        }
    }
}

/// The meta-evaluation (with --ratings) and the provenance, after the list.
fn more(p: &Page<'_>, provenance: Option<&factpico::Provenance>) -> Markup {
    html! {
        @if let Some(m) = p.meta {
            details.fp-section #fp-metaeval open {
                summary { "Meta-evaluation against the ratings (factpico meta-eval)" }
                @for w in &m.warnings { p.fp-error { (w) } }
                div.fp-md { (markdown(&m.markdown)) }
                @for (aspect, svg) in &m.scatter {
                    h3 { "Scatter: metric vs human " (aspect) }
                    img.fp-plot alt={ "scatter plot of each metric against " (aspect) } src=(svg_data_uri(svg));
                }
            }
        }
        @if let Some(v) = provenance {
            details.fp-section {
                summary { "Provenance (first row)" }
                pre.fp-prov { (serde_json::to_string_pretty(&v.to_value()).unwrap_or_default()) }
            }
        }
    }
}

fn list() -> Markup {
    html! {
        section #fp-rows {
            h2 #list { "Rows " span.fp-muted #fp-count {} }
            div.fp-filters {
                label { "system " select #fp-f-system { option value="" { "all" } } }
                label { "id contains " input #fp-f-id type="search" size="14"; }
                label { "column " select #fp-f-col { option value="" { "—" } } }
                label { "min " input #fp-f-min type="number" step="any"; }
                label { "max " input #fp-f-max type="number" step="any"; }
                label { input #fp-f-nulls type="checkbox"; " has nulls" }
                label { input #fp-f-warn type="checkbox"; " has warnings/errors" }
                label { "sort by " select #fp-sort { option value="" { "file order" } } }
                button.fp-btn #fp-sort-dir type="button" { "⇅" }
                button.fp-btn #fp-f-reset type="button" { "reset" }
            }
            div #fp-list-head {}
            div #fp-scroll { div #fp-canvas {} }
            p.fp-muted { "Click a row (or press Enter for the first) to open it; in a row, j / → next, k / ← previous (in the list's order), Esc back." }
        }
    }
}

/// The meta-eval Markdown as HTML. Raw HTML in it (e.g. a column name like `<b>`) is turned
/// into text, so it shows as written; columns are not aligned through `style` attributes.
fn markdown(md: &str) -> Markup {
    use pulldown_cmark::{Alignment, Event, Options, Parser, Tag};
    let events = Parser::new_ext(md, Options::ENABLE_TABLES).map(|e| match e {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        // Column alignment would become `style` attributes, which the page's CSP forbids;
        // the stylesheet right-aligns numbers instead.
        Event::Start(Tag::Table(a)) => Event::Start(Tag::Table(vec![Alignment::None; a.len()])),
        e => e,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    PreEscaped(out)
}

fn svg_data_uri(svg: &str) -> String {
    format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(svg.as_bytes()))
}

/// One strip of a histogram: a system (or all rows) and its bin counts.
struct Strip<'a> {
    label: String,
    /// The system the strip's bars filter the list to (`""`: all).
    system: &'a str,
    n: usize,
    mean: Option<f64>,
    counts: [usize; BINS],
}

/// One SVG histogram per primary column, one strip per system (and all rows when there are
/// several systems), from histograms binned over every row of the file.
fn distributions(p: &Page<'_>) -> Vec<Markup> {
    let mut out = Vec::new();
    for h in p.histograms {
        let col = &h.column;
        let (lo, hi, width, nulls) = (h.lo, h.hi, h.width(), h.nulls);
        let has_values = h.all.n > 0;
        let multi = p.systems.len() > 1;
        let mut strips: Vec<Strip<'_>> = Vec::new();
        for s in p.systems {
            let st = h.strips.get(s);
            strips.push(Strip {
                label: s.as_deref().map_or_else(|| "(no system)".to_owned(), crate::summary::shown_system),
                system: s.as_deref().unwrap_or(""),
                n: st.map_or(0, |x| x.n),
                mean: st.filter(|x| x.n > 0).map(|x| x.sum / x.n as f64),
                counts: st.map_or([0; BINS], |x| x.counts),
            });
        }
        if multi {
            strips.push(Strip {
                label: "(all)".into(),
                system: "",
                n: h.all.n,
                mean: (h.all.n > 0).then(|| h.all.sum / h.all.n as f64),
                counts: h.all.counts,
            });
        }
        const W: f64 = 360.0;
        const LABEL_H: f64 = 16.0;
        const BAR_H: f64 = 34.0;
        let strip_h = LABEL_H + BAR_H + 8.0;
        let h = 24.0 + strip_h * strips.len() as f64;
        let bar_w = W / BINS as f64;
        out.push(html! {
            div.fp-dist {
                svg xmlns="http://www.w3.org/2000/svg" width=(W) height=(h) viewBox={ "0 0 " (W) " " (h) } role="img" data-col=(col) {
                    title { (col) " per system" }
                    text x="4" y="14" font-weight="bold" { (col) }
                    text x=(W - 4.0) y="14" text-anchor="end" {
                        @if !has_values { "no values" } @else { (fmt(lo)) " … " (fmt(hi)) }
                        @if nulls > 0 { " · " (nulls) " null" }
                    }
                    @for (k, s) in strips.iter().enumerate() {
                        @let y0 = 24.0 + strip_h * k as f64;
                        @let base = y0 + LABEL_H + BAR_H;
                        @let max = s.counts.iter().copied().max().unwrap_or(0).max(1);
                        text x="4" y=(y0 + 12.0) {
                            (s.label) " · n = " (s.n)
                            @if let Some(m) = s.mean { " · mean " (fmt(m)) }
                        }
                        line x1="0" x2=(W) y1=(base) y2=(base) stroke="#ccc" {}
                        @for (b, &c) in s.counts.iter().enumerate() {
                            @if c > 0 {
                                @let bh = BAR_H * c as f64 / max as f64;
                                @let a = if hi > lo { lo + width * b as f64 } else { lo };
                                @let z = if b + 1 == BINS || hi <= lo { hi } else { lo + width * (b + 1) as f64 };
                                rect.fp-bar x=(bar_w * b as f64 + 0.5) y=(base - bh) width=(bar_w - 1.0) height=(bh)
                                    data-col=(col) data-lo=(a) data-hi=(z) data-system=(s.system) {
                                    title { (s.label) ": " (c) " rows with " (col) " in [" (fmt(a)) ", " (fmt(z)) (if b + 1 == BINS { "]" } else { ")" }) }
                                }
                            }
                        }
                    }
                }
            }
        });
    }
    out
}

fn fmt(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e5) {
        format!("{v:.3e}")
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline script and stylesheet are raw text elements: they must not contain what ends
    /// them or switches the HTML parser's script states.
    #[test]
    fn inline_assets_cannot_end_or_confuse_their_elements() {
        for (name, text) in [("report.js", JS), ("report.css", CSS)] {
            let lower = text.to_ascii_lowercase();
            for bad in ["</script", "<script", "<!--", "-->", "</style"] {
                assert!(!lower.contains(bad), "{name} contains {bad}");
            }
        }
    }
}
