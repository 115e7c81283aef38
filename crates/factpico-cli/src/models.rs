//! `factpico models list | pull NAME… [--int8] | import NAME DIR | rm NAME | path NAME`: the
//! published models of the catalogue (`crates/factpico-models/catalogue.json`), installed under
//! `$FACTPICO_HOME/models/NAME`. See `docs/models.md`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use factpico_models::{disk_size, factpico_home, Catalogue, ModelStore, PullOptions, Route};

/// `factpico models` arguments.
#[derive(Debug, clap::Args)]
pub struct ModelsArgs {
    /// Read this catalogue file instead of the built-in one (same JSON format; for private
    /// mirrors and tests).
    #[arg(long, global = true, env = "FACTPICO_MODELS_CATALOGUE", value_name = "FILE")]
    catalogue: Option<PathBuf>,
    #[command(subcommand)]
    cmd: ModelsCmd,
}

#[derive(Debug, clap::Subcommand)]
enum ModelsCmd {
    /// Every catalogue model: installed or not, size on disk (or the publisher's approximate
    /// size), conversion route, licence.
    List,
    /// Download, verify and install models into $FACTPICO_HOME/models/NAME (HF_ENDPOINT,
    /// HF_TOKEN, HF_HUB_OFFLINE and the Hugging Face cache are honoured).
    Pull {
        /// Catalogue names.
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
        /// Also install an int8 copy as NAME-int8 (models whose catalogue entry allows it).
        #[arg(long)]
        int8: bool,
        /// Reinstall even when installed.
        #[arg(long)]
        force: bool,
        /// No progress bars.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Install NAME from its publisher's files placed by hand in DIR (layout: `factpico
    /// models pull NAME` says it for models that cannot be downloaded).
    Import {
        /// Catalogue name.
        name: String,
        /// Directory holding the publisher's files.
        dir: PathBuf,
    },
    /// Remove an installed model (and its int8 copy).
    Rm {
        /// Catalogue name.
        name: String,
    },
    /// Print the installed model's directory (exit 1 when it is not installed).
    Path {
        /// Catalogue name.
        name: String,
    },
}

/// Control characters of untrusted text (a catalogue file, a path) shown escaped on a terminal.
fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect()
}

/// A Markdown table cell.
fn cell(s: &str) -> String {
    clean(s).replace('|', "\\|")
}

fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

fn store(args: &ModelsArgs) -> Result<ModelStore> {
    let cat = match &args.catalogue {
        Some(p) => Catalogue::from_file(p)?,
        None => Catalogue::builtin()?,
    };
    Ok(ModelStore::new(factpico_home(), cat))
}

/// The `factpico models list` table.
fn list(store: &ModelStore) -> Result<String> {
    let mut s = format!("models in {}\n\n", clean(&store.models_dir().display().to_string()));
    s.push_str("| name | installed | size | route | metric (option) | licence |\n|---|---|---|---|---|---|\n");
    for e in &store.catalogue().models {
        let path = store.path(&e.name)?;
        let (installed, size) = if path.is_dir() {
            ("yes", human(disk_size(&path)))
        } else if e.route == Route::Refused {
            ("refused", "–".to_owned())
        } else {
            ("no", format!("{} (publisher)", e.size))
        };
        s.push_str(&format!(
            "| {} | {installed} | {} | {} | {} ({}) | {} |\n",
            cell(&e.name),
            cell(&size),
            e.route.kind(),
            cell(&e.metric),
            cell(&e.option),
            cell(&e.licence)
        ));
    }
    s.push_str("\nInstall one with `factpico models pull NAME`; see docs/models.md.\n");
    Ok(s)
}

/// Runs `factpico models ...`; returns the exit code.
///
/// # Errors
/// An invalid catalogue file; an unknown name; failures of import and rm. `pull` reports
/// each name's failure and returns 2 when any failed.
pub fn run(args: &ModelsArgs) -> Result<i32> {
    let store = store(args)?;
    match &args.cmd {
        ModelsCmd::List => crate::output::print_stdout(&list(&store)?).map(|_| 0),
        ModelsCmd::Path { name } => {
            let p = store.path(name)?;
            if p.is_dir() {
                println!("{}", crate::term::path(&p));
                Ok(0)
            } else {
                eprintln!("{} is not installed; install it with `factpico models pull {}`", clean(name), clean(name));
                Ok(1)
            }
        }
        ModelsCmd::Rm { name } => {
            if store.rm(name)? {
                eprintln!("removed {}", clean(&store.path(name)?.display().to_string()));
                Ok(0)
            } else {
                eprintln!("{} is not installed; nothing removed", clean(name));
                Ok(1)
            }
        }
        ModelsCmd::Import { name, dir } => {
            let opts = PullOptions { quiet: true, ..PullOptions::default() };
            let p = store.import(name, dir, &opts).with_context(|| format!("factpico models import {name}"))?;
            eprintln!("{}: installed from {}", clean(name), clean(&dir.display().to_string()));
            println!("{}", crate::term::path(&p));
            Ok(0)
        }
        ModelsCmd::Pull { names, int8, force, quiet } => {
            let opts = PullOptions { quiet: *quiet, int8: *int8, force: *force, ..PullOptions::default() };
            let mut failed = 0;
            for name in names {
                match store.pull_report(name, &opts) {
                    Ok(p) => {
                        if p.already {
                            eprintln!("{}: already installed (--force reinstalls)", clean(name));
                        } else {
                            for (what, sha) in &p.files {
                                eprintln!("{}: {} sha256 {sha}", clean(name), clean(what));
                            }
                            eprintln!("{}: installed", clean(name));
                        }
                        println!("{}", crate::term::path(&p.path));
                    }
                    Err(e) => {
                        failed += 1;
                        eprintln!("error: {}: {:#}", clean(name), anyhow::Error::new(e));
                    }
                }
            }
            Ok(if failed > 0 { 2 } else { 0 })
        }
    }
}
