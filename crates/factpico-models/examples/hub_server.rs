//! The tests' Hugging Face hub stand-in as a program, to try `factpico models pull` by hand
//! (as the closing notes' acceptance runs do) without the real hub:
//!
//! ```sh
//! cargo run -p factpico-models --example hub_server -- DIR
//! # prints the endpoint; then: HF_ENDPOINT=<endpoint> factpico models pull alignscore-base
//! ```
//!
//! `DIR` holds the publishers' files in the hub's layout, `DIR/<org>/<repo>/<file>`. The
//! resolve endpoint listens on 127.0.0.1 and the storage host on 127.0.0.2; files ending in
//! `.ckpt`, `.bin`, `.safetensors`, `.onnx`, `.data` or `.model` are served as LFS files (302 to
//! storage, `X-Linked-Etag` = sha256, `Range` honoured), the others as git files. Runs until
//! killed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../tests/support/hub_server.rs"]
mod hub_server;

use std::path::{Path, PathBuf};

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: hub_server DIR   (DIR/<org>/<repo>/<file>)");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    walk(&dir, &dir, &mut files);
    let server = hub_server::HubServer::start(dir);
    {
        let mut b = server.behaviour.lock().unwrap();
        for f in &files {
            if [".ckpt", ".bin", ".safetensors", ".onnx", ".data", ".model"].iter().any(|x| f.ends_with(x)) {
                b.lfs.insert(f.clone());
            }
        }
    }
    println!("{}", server.endpoint);
    eprintln!("hub stand-in: {} files; resolve {}, storage {}", files.len(), server.endpoint, server.storage);
    loop {
        std::thread::park();
    }
}
