use super::*;

#[test]
fn freed_memory_is_kept_and_allocation_still_works() {
    assert_eq!(
        keep_freed_memory(),
        cfg!(all(target_os = "linux", target_env = "gnu"))
    );
    // Blocks below and above the new thresholds, freed and taken again, read back whole.
    for mib in [1usize, 16, 40, 16] {
        let v = vec![7u8; mib << 20];
        assert!(v.iter().all(|&b| b == 7));
    }
}

#[test]
fn position_specs() {
    assert_eq!(parse_positions("4").unwrap(), vec![0, 1, 2, 3]);
    assert_eq!(parse_positions("2..5").unwrap(), vec![2, 3, 4]);
    assert_eq!(parse_positions("2..=5").unwrap(), vec![2, 3, 4, 5]);
    assert_eq!(parse_positions("0, 3,7").unwrap(), vec![0, 3, 7]);
    for bad in ["", "x", "-1", "5..2", "3..3", "0", "1,,2", "0..99999999"] {
        assert!(parse_positions(bad).is_err(), "{bad:?} should be refused");
    }
}

#[test]
fn rope_apply_rotates_rows_by_their_positions() {
    let r = pe_report(
        PeKind::Rope,
        None,
        &[0, 1],
        10000.0,
        Some("[[1,0],[1,0]]"),
        8,
        "",
    )
    .unwrap();
    let rot = &r["rotated"];
    assert_eq!(rot[0][0].as_f64().unwrap(), 1.0);
    assert!((rot[1][0].as_f64().unwrap() - 1f64.cos()).abs() < 1e-6);
    assert!((rot[1][1].as_f64().unwrap() - 1f64.sin()).abs() < 1e-6);
}

#[test]
fn pe_bad_inputs_have_messages() {
    let e = |r: Result<serde_json::Value, String>| r.unwrap_err();
    assert!(
        e(pe_report(PeKind::Sinusoidal, None, &[0], 1e4, None, 8, ""))
            .contains("--dim is required")
    );
    assert!(e(pe_report(
        PeKind::Sinusoidal,
        Some(5),
        &[0],
        1e4,
        None,
        8,
        ""
    ))
    .contains("even"));
    assert!(e(pe_report(PeKind::Rope, Some(4), &[0], 0.5, None, 8, "")).contains("--base"));
    assert!(e(pe_report(
        PeKind::Rope,
        None,
        &[0, 1],
        1e4,
        Some("[[1,2]]"),
        8,
        ""
    ))
    .contains("one position per row"));
    assert!(e(pe_report(
        PeKind::Rope,
        None,
        &[0],
        1e4,
        Some("[[1,2,3]]"),
        8,
        ""
    ))
    .contains("even width"));
    assert!(e(pe_report(
        PeKind::Rope,
        None,
        &[0],
        1e4,
        Some("{oops"),
        8,
        ""
    ))
    .contains("JSON array"));
    assert!(e(pe_report(
        PeKind::Rope,
        None,
        &[0, 1],
        1e4,
        Some("[[1,2],[3]]"),
        8,
        ""
    ))
    .contains("row 1"));
    assert!(e(pe_report(PeKind::Alibi, None, &[0], 1e4, None, 0, "")).contains("--heads"));
    assert!(e(pe_report(
        PeKind::Learned,
        None,
        &[64],
        1e4,
        None,
        8,
        "demo-translate"
    ))
    .contains("past the learned table"));
    assert!(e(pe_report(
        PeKind::Learned,
        None,
        &[0],
        1e4,
        None,
        8,
        "demo-decoder"
    ))
    .contains("not a learned table"));
}

#[test]
fn attn_reports_unknown_models_and_empty_input() {
    assert!(attn("no-such-model", "x", "", 1.0, &Keep::default(), true)
        .unwrap_err()
        .contains("no model named"));
    assert!(attn("demo-encoder", "", "", 1.0, &Keep::default(), true)
        .unwrap_err()
        .contains("empty"));
    assert!(attn("demo-encoder", "hi", "", 0.0, &Keep::default(), true)
        .unwrap_err()
        .contains("temperature"));
}

/// `bench-vision` refuses what it cannot run, and a short run reports what it trained.
#[test]
fn bench_vision_checks_its_arguments_and_reports_a_run() {
    assert!(bench::bench_vision("cats", None, 1)
        .unwrap_err()
        .contains("unknown --task"));
    assert!(bench::bench_vision("count", Some(0), 1).is_err());
    assert!(bench::bench_vision("count", Some(5), 0).is_err());
    let out: serde_json::Value =
        serde_json::from_str(&bench::bench_vision("count", Some(3), 1).unwrap()).unwrap();
    assert_eq!(out["steps"], 3);
    assert_eq!(out["task"], "count");
    let accuracy = out["held_out_accuracy"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&accuracy));
    assert!(out["seconds"].as_f64().unwrap() > 0.0);
    assert!(out["cpu"]["logical_cpus"].as_u64().unwrap() >= 1);
}
