//! [`RuntimeOptions`]: how the ONNX-backed metrics run (batch size, threads, device),
//! shared by every unit that runs a model. Present in every build, so configurations are
//! portable; the ONNX Runtime itself is compiled in by the model-based metrics' features.

use serde::{Deserialize, Serialize};

/// Where models run.
///
/// Serialised (and parsed, e.g. by `--device`) as `"cpu"`, `"cuda"` (device 0) or
/// `"cuda:N"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// ONNX Runtime's CPU execution provider (the default).
    #[default]
    Cpu,
    /// ONNX Runtime's CUDA execution provider on device `N`. Needs the `factpico` cargo
    /// feature `cuda` and, at run time, an ONNX Runtime library built with CUDA (the PyPI
    /// `onnxruntime-gpu` wheel, pointed at by `ORT_DYLIB_PATH`) and the CUDA libraries it
    /// links; otherwise building a model-based metric fails with an error saying which.
    Cuda(u32),
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl std::str::FromStr for Device {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda(0)),
            _ => t.strip_prefix("cuda:").and_then(|n| n.parse::<u32>().ok()).map(Device::Cuda).ok_or_else(|| {
                crate::Error::InvalidOption {
                    option: "device",
                    message: format!("unknown device {s:?}: expected cpu, cuda or cuda:N (N = CUDA device ordinal)"),
                }
            }),
        }
    }
}

impl Serialize for Device {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Device {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Options shared by the model-based metrics (`ScorerOptions::runtime`).
/// Flags `--batch-size`, `--threads`, `--device` (feature `clap`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct RuntimeOptions {
    /// Pairs (or questions, arcs) per ONNX Runtime batch; unset = each metric's default
    /// (AlignScore 2, DAE 8, the QA metrics 16). Scores of fp32 graphs do not depend on it.
    #[cfg_attr(feature = "clap", arg(id = "runtime.batch_size", long = "batch-size"))]
    pub batch_size: Option<usize>,
    /// ONNX Runtime intra-op threads; unset = ONNX Runtime's default (one per physical core).
    #[cfg_attr(feature = "clap", arg(id = "runtime.threads", long = "threads"))]
    pub threads: Option<usize>,
    /// Where the models run: cpu (default), cuda or cuda:N. CUDA needs a factpico built with
    /// the `cuda` feature and an ONNX Runtime library with CUDA (onnxruntime-gpu;
    /// ORT_DYLIB_PATH).
    #[cfg_attr(feature = "clap", arg(id = "runtime.device", long = "device", default_value_t = RuntimeOptions::default().device))]
    pub device: Device,
}

#[cfg(feature = "runtime")]
impl RuntimeOptions {
    /// The runtime's session options for these settings (threads and execution provider).
    pub fn session(&self) -> factpico_runtime::SessionOptions {
        let mut s = factpico_runtime::SessionOptions::default();
        if let Some(t) = self.threads {
            s = s.intra_threads(t);
        }
        s.execution_provider(match self.device {
            Device::Cpu => factpico_runtime::ExecutionProvider::Cpu,
            Device::Cuda(n) => {
                factpico_runtime::ExecutionProvider::Cuda { device_id: i32::try_from(n).unwrap_or(i32::MAX) }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn device_parses_and_round_trips() {
        assert_eq!("cpu".parse::<Device>().unwrap(), Device::Cpu);
        assert_eq!("cuda".parse::<Device>().unwrap(), Device::Cuda(0));
        assert_eq!("CUDA:3".parse::<Device>().unwrap(), Device::Cuda(3));
        for bad in ["", "cuda:", "cuda:-1", "tpu", "cuda:x"] {
            let e = bad.parse::<Device>().unwrap_err().to_string();
            assert!(e.contains("expected cpu, cuda or cuda:N"), "{bad}: {e}");
        }
        for d in [Device::Cpu, Device::Cuda(0), Device::Cuda(7)] {
            let j = serde_json::to_string(&d).unwrap();
            assert_eq!(serde_json::from_str::<Device>(&j).unwrap(), d, "{j}");
        }
        assert_eq!(serde_json::to_string(&Device::Cuda(1)).unwrap(), "\"cuda:1\"");
        assert!(serde_json::from_str::<Device>("\"mps\"").is_err());
    }
}
