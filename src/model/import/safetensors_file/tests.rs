use super::*;
use safetensors::tensor::TensorView;

fn serialize(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
    let views: Vec<(String, TensorView)> = tensors
        .iter()
        .map(|(n, d, s, b)| (n.to_string(), TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    safetensors::serialize(views, None).unwrap()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A file from a hand-written header (padded with spaces to 8 bytes) and data.
fn raw(header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.as_bytes().to_vec();
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    let mut out = (h.len() as u64).to_le_bytes().to_vec();
    out.extend(h);
    out.extend(data);
    out
}

fn read(bytes: &[u8]) -> Result<TensorSet> {
    read_safetensors(bytes, &mut |_| {})
}

fn small() -> Vec<u8> {
    serialize(&[
        (
            "a",
            Dtype::F32,
            vec![2, 2],
            f32_bytes(&[1.0, -2.0, 0.5, 3.0]),
        ),
        (
            "b",
            Dtype::F16,
            vec![3],
            [0x3c00u16, 0x0001, 0x8000]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
    ])
}

#[test]
fn every_float_dtype_round_trips() {
    let f16_bits: [u16; 6] = [0x3c00, 0xc000, 0x0001, 0x03ff, 0x7bff, 0x8000];
    let f16_want = [
        1.0,
        -2.0,
        2f32.powi(-24),
        1023.0 * 2f32.powi(-24),
        65504.0,
        -0.0,
    ];
    let bf16_bits: [u16; 3] = [0x3f80, 0xc0a0, 0x0001];
    let bf16_want = [1.0, -5.0, f32::from_bits(0x0001_0000)];
    let f32_vals = [0.0, 1.5, -1e-30, 3e38, f32::MIN_POSITIVE / 2.0, 7.0];
    let le = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let bytes = serialize(&[
        ("h", Dtype::F16, vec![2, 3], le(&f16_bits)),
        ("b", Dtype::BF16, vec![3], le(&bf16_bits)),
        ("f", Dtype::F32, vec![3, 1, 2], f32_bytes(&f32_vals)),
        ("s", Dtype::F32, vec![], f32_bytes(&[4.0])),
    ]);
    let mut set = read(&bytes).unwrap();
    assert_eq!(set.len(), 4);
    assert_eq!(set.get("h").unwrap().stored_as, StoredAs::F16);
    let h = set.take_f32("h", &[2, 3]).unwrap();
    for (got, want) in h.iter().zip(f16_want) {
        assert_eq!(got.to_bits(), want.to_bits(), "{got} vs {want}");
    }
    let b = set.take_vector("b", 3).unwrap();
    for (got, want) in b.iter().zip(bf16_want) {
        assert_eq!(got.to_bits(), want.to_bits());
    }
    let f = set.take_f32("f", &[3, 1, 2]).unwrap();
    assert_eq!(f.iter().copied().collect::<Vec<_>>(), f32_vals);
    assert_eq!(set.take_f32("s", &[]).unwrap().sum(), 4.0);
}

#[test]
fn buffers_are_skipped_and_weights_kept() {
    let bytes = serialize(&[
        (
            "bert.embeddings.position_ids",
            Dtype::I64,
            vec![1, 2],
            vec![0; 16],
        ),
        (
            "h.0.attn.bias",
            Dtype::F32,
            vec![1, 1, 2, 2],
            f32_bytes(&[1.0, 0.0, 1.0, 1.0]),
        ),
        (
            "h.0.attn.masked_bias",
            Dtype::F32,
            vec![],
            f32_bytes(&[-1e4]),
        ),
        (
            "h.0.attn.c_attn.bias",
            Dtype::F32,
            vec![2],
            f32_bytes(&[1.0, 2.0]),
        ),
        (
            "model.layers.0.self_attn.rotary_emb.inv_freq",
            Dtype::F32,
            vec![1],
            f32_bytes(&[1.0]),
        ),
    ]);
    let set = read(&bytes).unwrap();
    assert_eq!(set.names().collect::<Vec<_>>(), ["h.0.attn.c_attn.bias"]);
    assert_eq!(set.skipped().len(), 4);
    assert!(is_buffer("attn.bias") && !is_buffer("c_attn.bias") && !is_buffer("bias"));
    // Without the predicate the I64 buffer is an unsupported dtype, named.
    let opts = ReadOptions {
        skip: &|_| false,
        ..ReadOptions::default()
    };
    let e = read_safetensors_with(&bytes, &opts, &mut |_| {}).unwrap_err();
    assert!(
        matches!(&e, ImportError::UnsupportedDtype { tensor, dtype, .. }
            if tensor == "bert.embeddings.position_ids" && dtype == "I64"),
        "{e}"
    );
}

#[test]
fn other_dtypes_are_refused_by_name() {
    for (dtype, bytes) in [
        (Dtype::F64, 8),
        (Dtype::I32, 4),
        (Dtype::U8, 1),
        (Dtype::F8_E4M3, 1),
    ] {
        let file = serialize(&[("w", dtype, vec![2], vec![0; 2 * bytes])]);
        let e = read(&file).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("`w`") && msg.contains(&format!("{dtype:?}")),
            "{msg}"
        );
    }
}

#[test]
fn progress_reaches_the_end() {
    let mut seen = Vec::new();
    read_safetensors(&small(), &mut |p| seen.push(p)).unwrap();
    let last = seen.last().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!((last.tensors_done, last.tensors_total), (2, 2));
    assert_eq!(last.bytes_done, last.bytes_total);
    assert_eq!(last.fraction(), 1.0);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = small();
    for cut in 0..bytes.len() {
        assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(read(&longer).is_err());
    assert!(read(&bytes).is_ok());
}

#[test]
fn every_flipped_byte_is_handled() {
    let bytes = small();
    for i in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            let _ = read(&b);
        }
    }
}

#[test]
fn lying_header_lengths() {
    let mut huge = u64::MAX.to_le_bytes().to_vec();
    huge.extend(b"{}");
    let e = read(&huge).unwrap_err();
    assert!(e.to_string().contains("limit"), "{e}");
    let mut past = 1000u64.to_le_bytes().to_vec();
    past.extend(b"{}      ");
    let e = read(&past).unwrap_err();
    assert!(e.to_string().contains("only 8 follow"), "{e}");
    let mut short = small();
    short[0] -= 8; // the header now ends inside its JSON
    assert!(read(&short).is_err());
}

#[test]
fn overlaps_gaps_and_wrong_sizes_are_refused() {
    let data = f32_bytes(&[1.0, 2.0, 3.0, 4.0]);
    for header in [
        // overlap
        r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#,
        // gap
        r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#,
        // size does not match the shape
        r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}}"#,
        // end before start
        r#"{"a":{"dtype":"F32","shape":[0],"data_offsets":[16,0]}}"#,
        // offsets past the data
        r#"{"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}"#,
        // data left over after the last tensor
        r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
        // unknown dtype, not an object, trailing text
        r#"{"a":{"dtype":"F17","shape":[4],"data_offsets":[0,16]}}"#,
        r#"[1,2,3]"#,
        r#"{} {}"#,
    ] {
        assert!(read(&raw(header, &data)).is_err(), "{header}");
    }
    let ok =
        r#"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
    assert!(read(&raw(ok, &data)).is_ok());
}

#[test]
fn duplicate_names_are_refused() {
    let h = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let e = read(&raw(h, &f32_bytes(&[1.0]))).unwrap_err();
    assert!(e.to_string().contains("`a` appears twice"), "{e}");
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    // Shapes whose products overflow, or claim far more than the file holds.
    for shape in [
        "[4294967296,4294967296,4294967296]",
        "[18446744073709551615,2]",
        "[1099511627776]",
    ] {
        let h = format!(r#"{{"a":{{"dtype":"F32","shape":{shape},"data_offsets":[0,4]}}}}"#);
        assert!(read(&raw(&h, &[0; 4])).is_err(), "{shape}");
    }
    let empty = r#"{"a":{"dtype":"F32","shape":[0,1099511627776],"data_offsets":[0,0]}}"#;
    assert!(read(&raw(empty, &[]))
        .unwrap_err()
        .to_string()
        .contains("longer than the whole file"));
    let rank9 = r#"{"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}}"#;
    let e = read(&raw(rank9, &[0; 4])).unwrap_err();
    assert!(e.to_string().contains("rank"), "{e}");
    // Counts and bytes over the caller's limits.
    let limits = Limits {
        max_tensors: 1,
        ..Limits::default()
    };
    let opts = ReadOptions {
        limits,
        ..ReadOptions::default()
    };
    let e = read_safetensors_with(&small(), &opts, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("number of tensors"), "{e}");
    let limits = Limits {
        max_total_bytes: 20,
        ..Limits::default()
    };
    let opts = ReadOptions {
        limits,
        ..ReadOptions::default()
    };
    let e = read_safetensors_with(&small(), &opts, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    let limits = Limits {
        max_file_bytes: 10,
        ..Limits::default()
    };
    let opts = ReadOptions {
        limits,
        ..ReadOptions::default()
    };
    assert!(read_safetensors_with(&small(), &opts, &mut |_| {}).is_err());
}

#[test]
fn nan_weights_load_but_are_refused_when_taken() {
    let bytes = serialize(&[("w", Dtype::F32, vec![2], f32_bytes(&[1.0, f32::NAN]))]);
    let mut set = read(&bytes).unwrap();
    let e = set.take_vector("w", 2).unwrap_err();
    assert!(
        e.to_string().contains("`w`") && e.to_string().contains("NaN"),
        "{e}"
    );
    // bf16 infinity is caught the same way.
    let inf = serialize(&[("x", Dtype::BF16, vec![1], 0x7f80u16.to_le_bytes().to_vec())]);
    assert!(read(&inf).unwrap().take("x").is_err());
}

#[test]
fn other_formats_are_named() {
    let e = read(b"PK\x03\x04\0\0\0\0\0\0").unwrap_err();
    assert!(e.to_string().contains("pickle"), "{e}");
    let e = read(b"GGUF\x03\0\0\0\0\0\0\0").unwrap_err();
    assert!(e.to_string().contains("GGUF"), "{e}");
    assert!(read(b"").is_err());
    assert!(read(b"short").is_err());
}

fn index_json(map: &[(&str, &str)]) -> String {
    let m: BTreeMap<&str, &str> = map.iter().copied().collect();
    serde_json::json!({"metadata": {"total_size": 1}, "weight_map": m}).to_string()
}

#[test]
fn shard_index_refuses_paths_and_pickles() {
    let l = Limits::default();
    for shard in [
        "../model.safetensors",
        "a/b.safetensors",
        "..\\x.safetensors",
        "/etc/passwd",
        "C:x.safetensors",
        "",
        ".hidden.safetensors",
        "model.json",
    ] {
        let e = parse_index(&index_json(&[("w", shard)]), &l).unwrap_err();
        assert!(matches!(e, ImportError::ShardIndex { .. }), "{shard}: {e}");
    }
    let e = parse_index(
        &index_json(&[("w", "pytorch_model-00001-of-00002.bin")]),
        &l,
    )
    .unwrap_err();
    assert!(e.to_string().contains("pickle"), "{e}");
    assert!(parse_index("{}", &l).is_err());
    assert!(parse_index(r#"{"weight_map":{}}"#, &l).is_err());
    assert!(parse_index(r#"{"weight_map":{"a":3}}"#, &l).is_err());
    assert!(parse_index("not json", &l).is_err());
    let i = parse_index(
        &index_json(&[
            ("a", "s2.safetensors"),
            ("b", "s1.safetensors"),
            ("c", "s2.safetensors"),
        ]),
        &l,
    )
    .unwrap();
    assert_eq!(i.shards(), ["s1.safetensors", "s2.safetensors"]);
}

fn shards() -> (String, Vec<(&'static str, Vec<u8>)>) {
    let s1 = serialize(&[
        ("a", Dtype::F32, vec![1], f32_bytes(&[1.0])),
        ("embeddings.position_ids", Dtype::I64, vec![1], vec![0; 8]),
    ]);
    let s2 = serialize(&[("b", Dtype::F16, vec![1], 0x4000u16.to_le_bytes().to_vec())]);
    let idx = index_json(&[
        ("a", "m-1.safetensors"),
        ("embeddings.position_ids", "m-1.safetensors"),
        ("b", "m-2.safetensors"),
    ]);
    (idx, vec![("m-1.safetensors", s1), ("m-2.safetensors", s2)])
}

fn load_from<'a>(files: &'a [(&'static str, Vec<u8>)]) -> impl FnMut(&str) -> Result<Vec<u8>> + 'a {
    move |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| ImportError::ShardIndex {
                file: INDEX_FILE.into(),
                reason: format!("shard `{name}` is missing"),
            })
    }
}

#[test]
fn shards_merge_and_are_checked_against_the_index() {
    let (idx, files) = shards();
    let l = Limits::default();
    let index = parse_index(&idx, &l).unwrap();
    let mut files_seen = Vec::new();
    let mut set = index
        .read_shards(&mut load_from(&files), &l, &mut |p| {
            files_seen.push((p.file_index, p.file_count))
        })
        .unwrap();
    assert_eq!(set.names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(set.skipped(), ["embeddings.position_ids"]);
    assert_eq!(files_seen.last(), Some(&(1, 2)));
    assert_eq!(set.take_vector("b", 1).unwrap()[0], 2.0);

    // A missing shard.
    let e = index
        .read_shards(&mut load_from(&files[..1]), &l, &mut |_| {})
        .unwrap_err();
    assert!(e.to_string().contains("m-2.safetensors"), "{e}");
    // The index puts a tensor in a shard that does not hold it.
    let wrong = parse_index(&index_swap(), &l).unwrap();
    let e = wrong
        .read_shards(&mut load_from(&files), &l, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, ImportError::ShardIndex { .. }), "{e}");
    // The same tensor in two shards.
    let twice = vec![
        ("m-1.safetensors", files[0].1.clone()),
        ("m-2.safetensors", files[0].1.clone()),
    ];
    let idx2 = index_json(&[("a", "m-1.safetensors"), ("c", "m-2.safetensors")]);
    let e = parse_index(&idx2, &l)
        .unwrap()
        .read_shards(&mut load_from(&twice), &l, &mut |_| {})
        .unwrap_err();
    assert!(e.to_string().contains("`a`"), "{e}");
}

fn index_swap() -> String {
    index_json(&[("a", "m-2.safetensors"), ("b", "m-1.safetensors")])
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn folders_files_and_pickles_on_disk() {
    let dir = std::env::temp_dir().join(format!("glimpse-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let l = Limits::default();
    // Sharded folder.
    let sharded = dir.join("sharded");
    std::fs::create_dir_all(&sharded).unwrap();
    let (idx, files) = shards();
    std::fs::write(sharded.join(INDEX_FILE), &idx).unwrap();
    for (n, b) in &files {
        std::fs::write(sharded.join(n), b).unwrap();
    }
    assert_eq!(read_path(&sharded, &l, &mut |_| {}).unwrap().len(), 2);
    assert_eq!(
        read_path(&sharded.join(INDEX_FILE), &l, &mut |_| {})
            .unwrap()
            .len(),
        2
    );
    std::fs::remove_file(sharded.join("m-2.safetensors")).unwrap();
    let e = read_path(&sharded, &l, &mut |_| {}).unwrap_err();
    assert!(
        e.to_string().contains("m-2.safetensors") && e.to_string().contains("missing"),
        "{e}"
    );
    // Single file, by folder and by name.
    let single = dir.join("single");
    std::fs::create_dir_all(&single).unwrap();
    std::fs::write(single.join(SINGLE_FILE), small()).unwrap();
    assert_eq!(read_path(&single, &l, &mut |_| {}).unwrap().len(), 2);
    let set = read_path(&single.join(SINGLE_FILE), &l, &mut |_| {}).unwrap();
    assert!(set.origin().ends_with(SINGLE_FILE));
    let tiny = Limits {
        max_file_bytes: 8,
        ..l
    };
    assert!(matches!(
        read_path(&single, &tiny, &mut |_| {}),
        Err(ImportError::TooLarge { .. })
    ));
    // Pickles, empty folders, missing files.
    let pickle = dir.join("pickle");
    std::fs::create_dir_all(&pickle).unwrap();
    let e = read_path(&pickle, &l, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains(SINGLE_FILE), "{e}");
    std::fs::write(pickle.join("pytorch_model.bin"), b"PK\x03\x04").unwrap();
    let e = read_path(&pickle, &l, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("pickle"), "{e}");
    let e = read_path(&pickle.join("pytorch_model.bin"), &l, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("pickle"), "{e}");
    assert!(matches!(
        read_path(&dir.join("nope.safetensors"), &l, &mut |_| {}),
        Err(ImportError::Io { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

/// all-MiniLM-L6-v2 (REAL_MODELS.md §6, §8), when another task has fetched it.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn real_minilm_when_present() {
    let Some(home) = std::env::var_os("HOME") else {
        return;
    };
    let path = std::path::Path::new(&home)
        .join(".cache/glimpse/models/all-MiniLM-L6-v2/model.safetensors");
    if !path.is_file() {
        println!("skipped: {} is absent", path.display());
        return;
    }
    let mut set = read_path(&path, &Limits::default(), &mut |_| {}).unwrap();
    set.strip_base_prefixes().unwrap();
    let (d, i, v, layers) = (384, 1536, 30522, 6);
    // 3 embeddings + LN (2) + 16 per layer + pooler (2).
    assert_eq!(
        set.len(),
        3 + 2 + 16 * layers + 2,
        "{:?}",
        set.names().collect::<Vec<_>>()
    );
    set.take_matrix("embeddings.word_embeddings.weight", v, d)
        .unwrap();
    set.take_matrix("embeddings.position_embeddings.weight", 512, d)
        .unwrap();
    set.take_matrix("embeddings.token_type_embeddings.weight", 2, d)
        .unwrap();
    set.take_vector("embeddings.LayerNorm.weight", d).unwrap();
    for l in 0..layers {
        let p = format!("encoder.layer.{l}");
        for m in [
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
        ] {
            set.take_matrix(&format!("{p}.{m}.weight"), d, d).unwrap();
            set.take_vector(&format!("{p}.{m}.bias"), d).unwrap();
        }
        set.take_matrix(&format!("{p}.intermediate.dense.weight"), i, d)
            .unwrap();
        set.take_matrix(&format!("{p}.output.dense.weight"), d, i)
            .unwrap();
    }
    println!(
        "MiniLM: {} tensors left, {} skipped",
        set.len(),
        set.skipped().len()
    );
}
