//! Embeds the app's languages: every `assets/locales/<code>/*.ftl` becomes part of the binary
//! (`$OUT_DIR/locales.rs`, read by `src/i18n.rs`), so a new language is a new folder and no code.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read when the script runs, not baked in when it was compiled: two checkouts sharing one
    // target directory share this script's binary.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("assets/locales");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut languages: Vec<_> = std::fs::read_dir(&root)
        .expect("assets/locales/ holds one folder per language")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    languages.sort();
    let mut out = String::from("pub static LOCALES: &[(&str, &[(&str, &str)])] = &[\n");
    for dir in languages {
        let code = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "ftl"))
            .collect();
        files.sort();
        writeln!(out, "    ({code:?}, &[").unwrap();
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let path = file.display().to_string();
            writeln!(out, "        ({name:?}, include_str!({path:?})),").unwrap();
        }
        out.push_str("    ]),\n");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("locales.rs");
    std::fs::write(dest, out).unwrap();
}
