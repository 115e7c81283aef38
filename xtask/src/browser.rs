//! `cargo xtask browser`: the headless browser of the `factpico report` tests — Debian's
//! `chromium` and `chromium-driver` (`/usr/bin/chromium`, `/usr/bin/chromedriver`), installed
//! with apt-get when absent and running as root (as `.ci/run` does). `cargo xtask test` calls
//! [`prepare_for_tests`]; the tests find the browser themselves and skip visibly without it
//! (fail under `FACTPICO_REQUIRE_BROWSER=1`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Result};

const PACKAGES: [&str; 2] = ["chromium", "chromium-driver"];

fn found() -> Option<(PathBuf, PathBuf)> {
    let chromium = std::env::var_os("FACTPICO_CHROMIUM").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromium".into());
    let driver = std::env::var_os("FACTPICO_CHROMEDRIVER").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromedriver".into());
    (chromium.is_file() && driver.is_file()).then_some((chromium, driver))
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn version(bin: &Path) -> String {
    Command::new(bin)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|e| format!("{}: {e}", bin.display()))
}

/// Installs chromium and chromedriver when absent (apt-get, as root); returns their paths.
///
/// # Errors
/// Absent and not root, or apt-get failed.
pub fn setup() -> Result<(PathBuf, PathBuf)> {
    if let Some(f) = found() {
        eprintln!("xtask: browser: {} / {}", version(&f.0), version(&f.1));
        return Ok(f);
    }
    if !is_root() {
        bail!("chromium / chromedriver not found; install them: sudo apt-get install {}", PACKAGES.join(" "));
    }
    eprintln!("xtask: installing {} with apt-get", PACKAGES.join(" "));
    crate::run(Command::new("apt-get").args(["update", "-qq"]))?;
    crate::run(Command::new("apt-get").args(["install", "-y", "-qq"]).args(PACKAGES).env("DEBIAN_FRONTEND", "noninteractive"))?;
    match found() {
        Some(f) => {
            eprintln!("xtask: browser: {} / {}", version(&f.0), version(&f.1));
            Ok(f)
        }
        None => bail!("apt-get installed {} but /usr/bin/chromium or /usr/bin/chromedriver is missing", PACKAGES.join(" ")),
    }
}

/// For `cargo xtask test`: the browser when it is there or can be installed; otherwise a
/// warning (the report browser tests then SKIP), or an error under FACTPICO_REQUIRE_BROWSER=1.
///
/// # Errors
/// The browser is required and cannot be had.
pub fn prepare_for_tests() -> Result<()> {
    match setup() {
        Ok(_) => Ok(()),
        Err(e) if std::env::var("FACTPICO_REQUIRE_BROWSER").is_ok_and(|v| v == "1") => Err(e),
        Err(e) => {
            eprintln!("xtask: WARNING: {e:#}\nxtask: the factpico report browser tests will SKIP");
            Ok(())
        }
    }
}
