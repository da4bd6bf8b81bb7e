//! The CPU a benchmark ran on, printed beside its figures so they can be attributed: the
//! project's machines differ (Zen 3 without AVX-512, Zen 4 with it, Intel Xeons), and the
//! matrix kernels run different code on each.

use serde::Serialize;

/// A CPU's model name, the SIMD extensions that decide which kernels run, and how many
/// logical CPUs it offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cpu {
    /// `model name` from /proc/cpuinfo; "unknown" where it cannot be read, "browser (wasm)"
    /// in the browser.
    pub model: String,
    pub logical_cpus: usize,
    pub avx2: bool,
    pub fma: bool,
    pub avx512f: bool,
    /// The matrix product's kernel that runs here ("avx512", "avx2", "simd128"); `None` where
    /// none does or only /proc/cpuinfo was read.
    pub product_kernel: Option<&'static str>,
}

impl Cpu {
    /// Reads the text of /proc/cpuinfo: the first `model name` line, the first `flags` (x86)
    /// or `Features` (ARM) line, and one `processor` line per logical CPU.
    pub fn from_cpuinfo(text: &str) -> Cpu {
        let field = |names: &[&str]| {
            text.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                names
                    .contains(&key.trim())
                    .then(|| value.trim().to_string())
            })
        };
        let model = field(&["model name"])
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "unknown".into());
        let flags = field(&["flags", "Features"]).unwrap_or_default();
        let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
        let logical_cpus = text
            .lines()
            .filter(|l| {
                l.split_once(':')
                    .is_some_and(|(k, _)| k.trim() == "processor")
            })
            .count();
        Cpu {
            model,
            logical_cpus,
            avx2: has("avx2"),
            fma: has("fma"),
            avx512f: has("avx512f"),
            product_kernel: None,
        }
    }
}

/// ` · ` between facts, `+` for an extension present and `-` for one absent:
/// `AMD EPYC 7B13 · 16 logical CPUs · +avx2 +fma -avx512f`.
impl std::fmt::Display for Cpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = |on: bool| if on { '+' } else { '-' };
        write!(
            f,
            "{} · {} logical CPU{} · {}avx2 {}fma {}avx512f",
            self.model,
            self.logical_cpus,
            if self.logical_cpus == 1 { "" } else { "s" },
            sign(self.avx2),
            sign(self.fma),
            sign(self.avx512f)
        )?;
        match self.product_kernel {
            Some(kernel) => write!(f, " · products {kernel}"),
            None => Ok(()),
        }
    }
}

/// This machine's CPU. On Linux from /proc/cpuinfo; elsewhere natively the model is
/// "unknown" and the extensions are asked of the processor itself.
#[cfg(not(target_arch = "wasm32"))]
pub fn cpu() -> Cpu {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut cpu = std::fs::read_to_string("/proc/cpuinfo")
        .map(|text| Cpu::from_cpuinfo(&text))
        .unwrap_or_else(|_| {
            let (avx2, fma, avx512f) = detected();
            Cpu {
                model: "unknown".into(),
                logical_cpus: 0,
                avx2,
                fma,
                avx512f,
                product_kernel: None,
            }
        });
    if cpu.logical_cpus == 0 {
        cpu.logical_cpus = threads;
    }
    cpu.product_kernel = glimpse_kernels::matmul::kernel().map(|k| k.name());
    cpu
}

/// `cpu: …` on stderr, as every benchmark starts (stdout stays free for its figures or JSON).
#[cfg(not(target_arch = "wasm32"))]
pub fn announce() {
    eprintln!("cpu: {}", cpu());
}

/// In the browser: no CPU is named to a page, and the build runs on one thread.
#[cfg(target_arch = "wasm32")]
pub fn cpu() -> Cpu {
    Cpu {
        model: "browser (wasm)".into(),
        logical_cpus: 1,
        avx2: false,
        fma: false,
        avx512f: false,
        product_kernel: glimpse_kernels::matmul::kernel().map(|k| k.name()),
    }
}

/// The processor's own answer where there is no /proc/cpuinfo: (avx2, fma, avx512f).
#[cfg(all(
    not(target_arch = "wasm32"),
    any(target_arch = "x86", target_arch = "x86_64")
))]
fn detected() -> (bool, bool, bool) {
    (
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("fma"),
        std::arch::is_x86_feature_detected!("avx512f"),
    )
}

/// None of the x86 extensions off x86.
#[cfg(not(any(target_arch = "wasm32", target_arch = "x86", target_arch = "x86_64")))]
fn detected() -> (bool, bool, bool) {
    (false, false, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two logical CPUs of a Zen 3 part: AVX2 and FMA, no AVX-512.
    const ZEN3: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n\
        model name\t: AMD EPYC 7B13\nflags\t\t: fpu vme sse2 avx fma avx2 bmi2\n\n\
        processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\
        flags\t\t: fpu vme sse2 avx fma avx2 bmi2\n";

    #[test]
    fn cpuinfo_gives_the_model_the_extensions_and_the_logical_cpus() {
        let cpu = Cpu::from_cpuinfo(ZEN3);
        assert_eq!(
            cpu,
            Cpu {
                model: "AMD EPYC 7B13".into(),
                logical_cpus: 2,
                avx2: true,
                fma: true,
                avx512f: false,
                product_kernel: None,
            }
        );
        assert_eq!(
            cpu.to_string(),
            "AMD EPYC 7B13 · 2 logical CPUs · +avx2 +fma -avx512f"
        );
    }

    /// `avx512f` is a flag of its own: `avx512bw` alone, or a name containing it, is not it.
    #[test]
    fn avx512f_is_matched_as_a_whole_flag() {
        let zen4 =
            "processor : 0\nmodel name : AMD Ryzen 9 7950X\nflags : avx2 fma avx512f avx512bw\n";
        assert!(Cpu::from_cpuinfo(zen4).avx512f);
        let other = "processor : 0\nmodel name : X\nflags : avx2 avx512bw avx512fx\n";
        let cpu = Cpu::from_cpuinfo(other);
        assert!(!cpu.avx512f && !cpu.fma && cpu.avx2);
    }

    /// An ARM server's cpuinfo often has no `model name`; an empty text knows nothing.
    #[test]
    fn other_layouts_and_empty_text_fall_back() {
        let arm = "processor : 0\nFeatures : fp asimd\nCPU part : 0xd0c\n";
        let cpu = Cpu::from_cpuinfo(arm);
        assert_eq!((cpu.model.as_str(), cpu.logical_cpus), ("unknown", 1));
        assert!(!cpu.avx2);
        let none = Cpu::from_cpuinfo("");
        assert_eq!((none.model.as_str(), none.logical_cpus), ("unknown", 0));
        assert_eq!(
            none.to_string(),
            "unknown · 0 logical CPUs · -avx2 -fma -avx512f"
        );
    }

    /// This machine's answer is complete: at least one CPU and a model name.
    #[test]
    fn this_machine_has_a_name_and_a_cpu() {
        let cpu = cpu();
        assert!(cpu.logical_cpus >= 1, "{cpu}");
        assert!(!cpu.model.is_empty(), "{cpu}");
    }
}
