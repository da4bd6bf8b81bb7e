use super::*;
use crate::model::import::error::ImportError;
use crate::model::import::gguf_writer::GgufWriter;
use crate::model::import::tensors::StoredAs;
use half::f16;

fn h(x: f32) -> [u8; 2] {
    f16::from_f32(x).to_le_bytes()
}

/// One Q8_0 block of values d·(j − 16), one Q4_0 block d·(j%16 − 8), one Q4_1 block.
fn q8_block(d: f32) -> Vec<u8> {
    let mut b = h(d).to_vec();
    b.extend((0..32).map(|j| (j as i8 - 16) as u8));
    b
}

fn q4_0_block(d: f32) -> Vec<u8> {
    let mut b = h(d).to_vec();
    b.extend((0..16u8).map(|j| j << 4 | j));
    b
}

fn q4_1_block(d: f32, m: f32) -> Vec<u8> {
    let mut b = h(d).to_vec();
    b.extend(h(m));
    b.extend((0..16u8).map(|j| (15 - j) << 4 | j));
    b
}

fn writer() -> GgufWriter {
    let mut w = GgufWriter::new();
    w.meta("general.architecture", MetaValue::Str("llama".into()))
        .meta("llama.block_count", MetaValue::U32(2))
        .meta("llama.context_length", MetaValue::U64(64))
        .meta("llama.rope.freq_base", MetaValue::F32(1e5))
        .meta("small", MetaValue::U8(7))
        .meta("negative", MetaValue::I32(-3))
        .meta("wide", MetaValue::F64(0.25))
        .meta("flag", MetaValue::Bool(true))
        .meta(
            "tokens",
            MetaValue::Array(MetaArray::Str(vec!["a".into(), "é".into(), "".into()])),
        )
        .meta("types", MetaValue::Array(MetaArray::I32(vec![1, 3, 6])))
        .meta("ids16", MetaValue::Array(MetaArray::U16(vec![5, 65535])))
        .meta("scores", MetaValue::Array(MetaArray::F32(vec![0.5, -1.0])))
        .meta(
            "nested",
            MetaValue::Array(MetaArray::Array(vec![
                MetaArray::U8(vec![1, 2]),
                MetaArray::Bool(vec![false]),
            ])),
        )
        .meta("others", MetaValue::Array(MetaArray::I64(vec![-1])))
        .meta("others2", MetaValue::Array(MetaArray::U64(vec![1])))
        .meta("others3", MetaValue::Array(MetaArray::F64(vec![2.0])))
        .meta("others4", MetaValue::Array(MetaArray::I8(vec![-2])))
        .meta("others5", MetaValue::Array(MetaArray::I16(vec![-4])))
        .meta("others6", MetaValue::Array(MetaArray::U32(vec![9])))
        .meta("i8", MetaValue::I8(-1))
        .meta("i16", MetaValue::I16(300))
        .meta("u16", MetaValue::U16(300))
        .meta("i64", MetaValue::I64(1 << 40))
        .meta("u64", MetaValue::U64(u64::MAX));
    w.tensor_f32("norm.weight", &[3], &[1.0, -2.0, 0.5])
        .tensor_f16(
            "h.weight",
            &[2, 3],
            &[1.0, 2.0, 3.0, -0.5, 65504.0, 2f32.powi(-24)],
        )
        .tensor_bf16("b.weight", &[1, 2], &[1.0, -3.0])
        .tensor_bytes(
            "q8.weight",
            &[2, 32],
            GgmlType::Q8_0,
            [q8_block(0.5), q8_block(-1.0)].concat(),
        )
        .tensor_bytes("q40.weight", &[1, 32], GgmlType::Q4_0, q4_0_block(0.25))
        .tensor_bytes(
            "q41.weight",
            &[1, 1, 32],
            GgmlType::Q4_1,
            q4_1_block(2.0, -1.5),
        );
    w
}

fn parse(bytes: &[u8]) -> Result<Gguf> {
    Gguf::parse(bytes)
}

fn read(bytes: &[u8]) -> Result<(Gguf, TensorSet)> {
    read_gguf(bytes, &mut |_| {})
}

#[test]
fn round_trip_of_every_type_and_value() {
    let bytes = writer().to_bytes();
    let (g, mut set) = read(&bytes).unwrap();
    assert_eq!(g.version, 3);
    assert_eq!(g.alignment, 32);
    assert_eq!(g.data_offset % 32, 0);
    assert_eq!(g.architecture().unwrap(), "llama");
    assert_eq!(g.get_u32("llama.block_count").unwrap(), 2);
    assert_eq!(g.get_u32("small").unwrap(), 7);
    assert_eq!(g.get_u64("llama.context_length").unwrap(), 64);
    assert_eq!(g.get_f32("llama.rope.freq_base").unwrap(), 1e5);
    assert_eq!(g.get_f32("wide").unwrap(), 0.25);
    assert_eq!(g.get_f32("small").unwrap(), 7.0);
    assert!(g.get_bool("flag").unwrap());
    assert_eq!(g.get_str_array("tokens").unwrap(), ["a", "é", ""]);
    assert_eq!(g.get_i32_array("types").unwrap(), [1, 3, 6]);
    assert_eq!(g.get_u32_array("ids16").unwrap(), [5, 65535]);
    assert_eq!(g.get_i32_array("ids16").unwrap(), [5, 65535]);
    assert_eq!(g.get_f32_array("scores").unwrap(), [0.5, -1.0]);
    assert_eq!(g.get_f32_array("others3").unwrap(), [2.0]);
    assert_eq!(g.get_i32_array("others").unwrap(), [-1]);
    assert_eq!(g.get_u32_array("others6").unwrap(), [9]);
    assert_eq!(g.get_u64("i64").unwrap(), 1 << 40);
    assert_eq!(g.get_u64("u64").unwrap(), u64::MAX);
    assert_eq!(g.get_u32("u16").unwrap(), 300);
    assert!(matches!(g.get_array("nested").unwrap(), MetaArray::Array(a) if a.len() == 2));
    assert_eq!(g.optional("absent", Gguf::get_f32).unwrap(), None);
    assert_eq!(g.optional("wide", Gguf::get_f32).unwrap(), Some(0.25));
    // Wrong types and values that do not fit are errors naming the key.
    for (key, e) in [
        ("negative", g.get_u64("negative").unwrap_err()),
        ("u64", g.get_u32("u64").unwrap_err()),
        ("flag", g.get_u32("flag").unwrap_err()),
        ("small", g.get_str("small").unwrap_err()),
        ("tokens", g.get_i32_array("tokens").unwrap_err()),
        ("others2", g.get_str_array("others2").unwrap_err()),
        ("missing", g.get_str("missing").unwrap_err()),
        ("i8", g.get_u32("i8").unwrap_err()),
        ("types", g.get_f32_array("types").unwrap_err()),
        ("flag", g.get_array("flag").unwrap_err()),
    ] {
        assert!(
            matches!(&e, ImportError::Metadata { key: k, .. } if k == key),
            "{key}: {e}"
        );
    }

    // Shapes in PyTorch order; values exact.
    assert_eq!(g.tensor("h.weight").unwrap().shape, [2, 3]);
    assert_eq!(set.len(), 6);
    assert_eq!(
        set.take_vector("norm.weight", 3).unwrap().to_vec(),
        [1.0, -2.0, 0.5]
    );
    let hv = set.take_matrix("h.weight", 2, 3).unwrap();
    assert_eq!(
        hv.iter().copied().collect::<Vec<_>>(),
        [1.0, 2.0, 3.0, -0.5, 65504.0, 2f32.powi(-24)]
    );
    assert_eq!(set.take_matrix("b.weight", 1, 2).unwrap().sum(), -2.0);
    let q8 = set.take("q8.weight").unwrap();
    assert_eq!(
        (q8.stored_as, q8.shape.clone(), q8.memory_bytes()),
        (StoredAs::Q8_0, vec![2, 32], 68)
    );
    let v = q8.into_f32();
    for j in 0..32 {
        assert_eq!(v[j], 0.5 * (j as f32 - 16.0));
        assert_eq!(v[32 + j], -(j as f32 - 16.0));
    }
    let v = set.take_matrix("q40.weight", 1, 32).unwrap();
    for j in 0..16 {
        assert_eq!(v[[0, j]], 0.25 * (j as f32 - 8.0));
        assert_eq!(v[[0, j + 16]], 0.25 * (j as f32 - 8.0));
    }
    let v = set.take_f32("q41.weight", &[1, 1, 32]).unwrap();
    let v: Vec<f32> = v.iter().copied().collect();
    for j in 0..16 {
        assert_eq!(v[j], 2.0 * j as f32 - 1.5);
        assert_eq!(v[j + 16], 2.0 * (15 - j) as f32 - 1.5);
    }
}

#[test]
fn memory_counts_quantized_blocks_as_stored() {
    let (g, set) = read(&writer().to_bytes()).unwrap();
    assert_eq!(set.quantized_bytes(), 68 + 18 + 20);
    assert_eq!(set.memory_bytes(), 68 + 18 + 20 + 4 * (3 + 6 + 2));
    assert_eq!(g.data_bytes(), 68 + 18 + 20 + 12 + 12 + 4);
}

#[test]
fn other_alignments() {
    let mut w = writer();
    w.meta("general.alignment", MetaValue::U32(64));
    let (g, set) = read(&w.to_bytes()).unwrap();
    assert_eq!((g.alignment, g.data_offset % 64), (64, 0));
    assert_eq!(set.len(), 6);
    for bad in [MetaValue::U32(48), MetaValue::U32(0), MetaValue::U64(32)] {
        let mut w = writer();
        w.meta("general.alignment", bad.clone());
        let e = parse(&w.to_bytes()).unwrap_err();
        assert!(e.to_string().contains("alignment"), "{bad:?}: {e}");
    }
}

#[test]
fn every_truncation_is_an_error() {
    let mut w = GgufWriter::new();
    w.meta("k", MetaValue::Array(MetaArray::Str(vec!["xy".into()])))
        .meta("b", MetaValue::Bool(false))
        .tensor_f32("a", &[2], &[1.0, 2.0])
        .tensor_bytes("q", &[32], GgmlType::Q8_0, q8_block(1.0));
    let bytes = w.to_bytes();
    assert!(read(&bytes).is_ok());
    for cut in 0..bytes.len() {
        assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn every_flipped_byte_is_handled() {
    let bytes = writer().to_bytes();
    for i in 0..bytes.len() {
        for flip in [0x01, 0x10, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            if let Ok((_, set)) = read(&b) {
                for name in set.names() {
                    let _ = set.get(name).map(|t| t.clone().into_f32());
                }
            }
        }
    }
}

/// A header by hand: magic, version, counts.
fn head(version: u32, tensors: u64, kv: u64) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend(version.to_le_bytes());
    b.extend(tensors.to_le_bytes());
    b.extend(kv.to_le_bytes());
    b
}

fn s(out: &mut Vec<u8>, text: &[u8]) {
    out.extend((text.len() as u64).to_le_bytes());
    out.extend(text);
}

fn tensor_entry(out: &mut Vec<u8>, name: &str, dims: &[u64], ty: u32, offset: u64) {
    s(out, name.as_bytes());
    out.extend((dims.len() as u32).to_le_bytes());
    for d in dims {
        out.extend(d.to_le_bytes());
    }
    out.extend(ty.to_le_bytes());
    out.extend(offset.to_le_bytes());
}

fn padded(mut b: Vec<u8>, data: usize) -> Vec<u8> {
    b.resize(b.len().next_multiple_of(32) + data, 0);
    b
}

fn msg(bytes: &[u8]) -> String {
    match read(bytes) {
        Ok(_) => "Ok".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn huge_counts_and_lengths_are_refused_before_allocating() {
    assert!(msg(&head(3, u64::MAX, 0)).contains("tensor count"));
    assert!(msg(&head(3, 0, u64::MAX)).contains("metadata count"));
    assert!(msg(&head(3, 1 << 40, 1 << 40)).contains("only"));
    let mut b = head(3, 0, 1);
    s(&mut b, b"key");
    b.extend(9u32.to_le_bytes()); // array
    b.extend(8u32.to_le_bytes()); // of strings
    b.extend(u64::MAX.to_le_bytes());
    assert!(msg(&b).contains("array `key`"), "{}", msg(&b));
    let mut b = head(3, 0, 1);
    s(&mut b, b"key");
    b.extend(8u32.to_le_bytes());
    b.extend((1u64 << 62).to_le_bytes()); // a string of 2^62 bytes
    assert!(msg(&b).contains("bytes long"), "{}", msg(&b));
    let mut b = head(3, 0, 1);
    b.extend(u64::MAX.to_le_bytes()); // key length
    b.extend([0; 16]);
    assert!(msg(&b).contains("metadata key"), "{}", msg(&b));
    // Deeply nested arrays.
    let mut b = head(3, 0, 1);
    s(&mut b, b"deep");
    b.extend(9u32.to_le_bytes());
    for _ in 0..8 {
        b.extend(9u32.to_le_bytes());
        b.extend(1u64.to_le_bytes());
    }
    b.extend([0; 16]);
    assert!(msg(&b).contains("nests"), "{}", msg(&b));
    // A cap below the file's own count.
    let limits = Limits {
        max_tensors: 2,
        ..Limits::default()
    };
    let e = Gguf::parse_with(&writer().to_bytes(), "x.gguf", &limits).unwrap_err();
    assert!(e.to_string().contains("number of tensors"), "{e}");
    let limits = Limits {
        max_total_bytes: 100,
        ..Limits::default()
    };
    let bytes = writer().to_bytes();
    let g = Gguf::parse(&bytes).unwrap();
    assert!(g.read_tensors(&bytes, &limits, &mut |_| {}).is_err());
}

#[test]
fn absurd_dimensions_are_refused() {
    for dims in [
        vec![1u64 << 32, 1 << 32, 1 << 32, 1 << 32],
        vec![u64::MAX],
        vec![1 << 40, 1 << 20],
        vec![1, 1, 1, 1, 1],
        vec![1 << 40, 0],
    ] {
        let mut b = head(3, 1, 0);
        tensor_entry(&mut b, "w", &dims, 0, 0);
        let b = padded(b, 64);
        let m = msg(&b);
        assert!(m.contains("`w`"), "{dims:?}: {m}");
    }
    // Rows that do not split into blocks.
    let mut b = head(3, 1, 0);
    tensor_entry(&mut b, "w", &[33], 8, 0);
    assert!(msg(&padded(b, 64)).contains("blocks of 32"));
}

#[test]
fn lying_offsets_are_refused() {
    // Past the end.
    let mut b = head(3, 1, 0);
    tensor_entry(&mut b, "w", &[4], 0, 32);
    let m = msg(&padded(b, 16));
    assert!(m.contains("past the end"), "{m}");
    // Misaligned.
    let mut b = head(3, 1, 0);
    tensor_entry(&mut b, "w", &[1], 0, 4);
    assert!(msg(&padded(b, 64)).contains("alignment"));
    // Offset near u64::MAX.
    let mut b = head(3, 1, 0);
    tensor_entry(&mut b, "w", &[4], 0, u64::MAX - 31);
    assert!(msg(&padded(b, 64)).contains("`w`"));
    // Overlapping.
    let mut b = head(3, 2, 0);
    tensor_entry(&mut b, "a", &[16], 0, 0);
    tensor_entry(&mut b, "b", &[16], 0, 32);
    let m = msg(&padded(b, 96));
    assert!(m.contains("overlap"), "{m}");
    // The same well-formed pair at 0 and 64 is fine.
    let mut b = head(3, 2, 0);
    tensor_entry(&mut b, "a", &[16], 0, 0);
    tensor_entry(&mut b, "b", &[16], 0, 64);
    assert_eq!(msg(&padded(b, 128)), "Ok");
}

#[test]
fn bad_headers_and_values() {
    assert!(msg(b"GGUF").contains("ends inside"));
    assert!(msg(&head(1, 0, 0)).contains("version 1"));
    assert!(msg(&head(3u32.swap_bytes(), 0, 0)).contains("big-endian"));
    assert!(msg(&head(4, 0, 0)).contains("version 4"));
    assert!(msg(b"GGML\x03\0\0\0").contains("GGUF"));
    assert!(msg(b"").contains("not a valid"));
    assert_eq!(msg(&head(2, 0, 0)), "Ok");
    // Non-UTF-8 key, unknown value type, bool not 0/1, duplicate key, duplicate tensor.
    let mut b = head(3, 0, 1);
    s(&mut b, b"\xff\xfe");
    b.extend(4u32.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    assert!(msg(&b).contains("UTF-8"));
    let mut b = head(3, 0, 1);
    s(&mut b, b"k");
    b.extend(13u32.to_le_bytes());
    b.extend([0; 8]);
    assert!(msg(&b).contains("unknown value type"));
    let mut b = head(3, 0, 1);
    s(&mut b, b"k");
    b.extend(7u32.to_le_bytes());
    b.push(2);
    assert!(msg(&b).contains("bool"));
    let mut b = head(3, 0, 2);
    for _ in 0..2 {
        s(&mut b, b"k");
        b.extend(0u32.to_le_bytes());
        b.push(1);
    }
    assert!(msg(&b).contains("twice"));
    let mut b = head(3, 2, 0);
    tensor_entry(&mut b, "a", &[1], 0, 0);
    tensor_entry(&mut b, "a", &[1], 0, 32);
    assert!(msg(&padded(b, 64)).contains("twice"));
    let mut b = head(3, 1, 0);
    tensor_entry(&mut b, &"n".repeat(300), &[1], 0, 0);
    assert!(msg(&padded(b, 4)).contains("name"));
    // Other formats.
    assert!(msg(b"PK\x03\x04").contains("pickle"));
}

#[test]
fn unsupported_types_parse_but_are_refused_by_name() {
    let mut b = head(3, 1, 0);
    tensor_entry(&mut b, "blk.0.ffn_down.weight", &[256, 2], 12, 0);
    let b = padded(b, 288);
    let g = parse(&b).unwrap();
    assert_eq!(g.tensors[0].ggml_type.name(), "Q4_K");
    assert!(!g.tensors[0].ggml_type.is_supported());
    let e = g
        .read_tensors(&b, &Limits::default(), &mut |_| {})
        .unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("blk.0.ffn_down.weight") && m.contains("Q4_K") && m.contains("Q8_0"),
        "{m}"
    );
    assert_eq!(GgmlType(99).name(), "type 99");
}

#[test]
fn non_finite_values() {
    let mut w = GgufWriter::new();
    w.tensor_f32("w", &[2], &[1.0, f32::INFINITY]);
    let (_, mut set) = read(&w.to_bytes()).unwrap();
    assert!(set.take("w").unwrap_err().to_string().contains("inf"));
    let mut w = GgufWriter::new();
    w.tensor_bytes(
        "blk.3.attn_k.weight",
        &[32],
        GgmlType::Q8_0,
        q8_block(f32::NAN),
    );
    let e = read(&w.to_bytes()).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("blk.3.attn_k.weight") && m.contains("model.gguf"),
        "{m}"
    );
}

#[test]
fn progress_and_parse_mismatch() {
    let bytes = writer().to_bytes();
    let g = parse(&bytes).unwrap();
    let mut last = Progress::default();
    g.read_tensors(&bytes, &Limits::default(), &mut |p| last = p)
        .unwrap();
    assert_eq!((last.tensors_done, last.bytes_done), (6, last.bytes_total));
    assert!(g
        .read_tensors(&bytes[..bytes.len() - 1], &Limits::default(), &mut |_| {})
        .is_err());
}

/// Tensors are copied last in the file first, so the file can be cut behind each copy: read
/// a tensor at a time from a copy that is cut as it goes, the same tensors come out.
#[test]
fn the_file_can_be_cut_behind_each_copy() {
    let bytes = writer().to_bytes();
    let g = parse(&bytes).unwrap();
    let mut reading = g.start_reading(&bytes, &Limits::default()).unwrap();
    let mut file = bytes.clone();
    let mut cuts = vec![reading.needed_up_to()];
    while !g.read_some(&file, &mut reading, 1, &mut |_| {}).unwrap() {
        cuts.push(reading.needed_up_to());
        file.truncate(reading.needed_up_to());
    }
    cuts.push(reading.needed_up_to());
    assert!(cuts.windows(2).all(|w| w[1] <= w[0]), "{cuts:?}");
    // At the end only the header is needed: every tensor's bytes could be given back.
    let header = bytes.len() - g.data_bytes() as usize;
    assert!(
        *cuts.last().unwrap() <= header,
        "{cuts:?} of {}",
        bytes.len()
    );
    assert_eq!(reading.set, read(&bytes).unwrap().1);
}

/// SmolLM2-135M-Instruct (REAL_MODELS.md §7), when another task has fetched it.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn real_smollm2_when_present() {
    let Some(path) = crate::util::real_models::smollm2() else {
        return;
    };
    let (g, set) = read_gguf_path(&path, &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(g.architecture().unwrap(), "llama");
    assert_eq!(g.get_u32("llama.block_count").unwrap(), 30);
    assert_eq!(g.get_u32("llama.embedding_length").unwrap(), 576);
    assert_eq!(g.get_u32("llama.attention.head_count").unwrap(), 9);
    assert_eq!(g.get_u32("llama.attention.head_count_kv").unwrap(), 3);
    assert_eq!(g.get_f32("llama.rope.freq_base").unwrap(), 1e5);
    assert_eq!(
        g.get_str_array("tokenizer.ggml.tokens").unwrap().len(),
        49152
    );
    // 9 per block + embeddings + final norm (output tied).
    assert_eq!(set.len(), 30 * 9 + 2);
    assert_eq!(set.get("token_embd.weight").unwrap().shape, [49152, 576]);
    assert_eq!(set.get("blk.0.attn_q.weight").unwrap().shape, [576, 576]);
    assert_eq!(set.get("blk.0.attn_k.weight").unwrap().shape, [192, 576]);
    assert_eq!(set.get("blk.0.ffn_down.weight").unwrap().shape, [576, 1536]);
    assert_eq!(set.get("blk.0.ffn_gate.weight").unwrap().shape, [1536, 576]);
    assert_eq!(set.get("output_norm.weight").unwrap().shape, [576]);
    println!(
        "SmolLM2: {} tensors, {} bytes in memory, {} quantized",
        set.len(),
        set.memory_bytes(),
        set.quantized_bytes()
    );
}
