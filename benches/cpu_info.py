"""The CPU a benchmark ran on, as `glimpse bench-*` reports it (src/util/machine.rs): the model
name, the SIMD extensions that decide which kernels run (AVX2, FMA, AVX-512F) and the logical
CPUs, read from /proc/cpuinfo ("unknown" where there is none). Every benchmark script prints
`describe()` first, so its figures can be attributed to a machine.
"""
import os


def cpu():
    """{"model", "logical_cpus", "avx2", "fma", "avx512f"}, like the `cpu` field of the CLI's JSON."""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        text = ""

    def field(*names):
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() in names:
                return value.strip()
        return None

    flags = set((field("flags", "Features") or "").split())
    processors = sum(1 for l in text.splitlines() if l.partition(":")[0].strip() == "processor")
    return {
        "model": field("model name") or "unknown",
        "logical_cpus": processors or os.cpu_count() or 1,
        "avx2": "avx2" in flags,
        "fma": "fma" in flags,
        "avx512f": "avx512f" in flags,
    }


def describe(c=None):
    """One line: `cpu: AMD EPYC 7B13 · 16 logical CPUs · +avx2 +fma -avx512f`."""
    c = c or cpu()
    sign = lambda on: "+" if on else "-"
    plural = "" if c["logical_cpus"] == 1 else "s"
    return (f"cpu: {c['model']} · {c['logical_cpus']} logical CPU{plural} · "
            f"{sign(c['avx2'])}avx2 {sign(c['fma'])}fma {sign(c['avx512f'])}avx512f")
