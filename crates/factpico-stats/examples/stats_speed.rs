//! Timings of the main statistics on seeded synthetic data (run with
//! `--release`): `cargo run --release -p factpico-stats --example stats_speed`.
//! Prints the median wall and thread-CPU time of several runs; the Python
//! counterpart is `crates/factpico-stats/tools/bench.py`.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use factpico_stats::{kendall_tau_b, pairwise_accuracy_tie_calibrated, pearson_r, spearman_rho};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// CPU time of this thread in ns from Linux `/proc/thread-self/schedstat` (None elsewhere).
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time(name: &str, runs: usize, f: &dyn Fn() -> Option<f64>) {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    let mut value = None;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_ns());
        value = f();
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(c0), Some(c1)) = (c, cpu_ns()) {
            cpu.push((c1 - c0) as f64 / 1e6);
        }
    }
    let cpu = if cpu.is_empty() {
        "n/a".to_owned()
    } else {
        format!("{:.2} ms", median(cpu))
    };
    println!(
        "{name:<42} wall median {:>9.2} ms, CPU median {cpu:>10}  value {value:?}",
        median(wall)
    );
}

fn main() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let n = 100_000;
    let h: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(1..=4))).collect();
    let m: Vec<f64> = h.iter().map(|&x| 0.2 * x + rng.random::<f64>()).collect();
    time("kendall_tau_b n=100000", 11, &|| {
        kendall_tau_b(&m, &h).unwrap().statistic
    });
    time("spearman_rho n=100000", 11, &|| {
        spearman_rho(&m, &h).unwrap().statistic
    });
    time("pearson_r n=100000", 11, &|| {
        pearson_r(&m, &h).unwrap().statistic
    });
    for (k, runs) in [(1_000, 11), (3_000, 5)] {
        time(
            &format!("pairwise_accuracy_tie_calibrated n={k}"),
            runs,
            &|| {
                pairwise_accuracy_tie_calibrated(&m[..k], &h[..k])
                    .unwrap()
                    .accuracy
            },
        );
    }
}
