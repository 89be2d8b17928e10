//! The bundled catalogs: every entry loads and holds its invariants, the seed cards are present
//! under their contract ids, and spot checks against vendor datasheets (each cited beside it).
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::catalog::{self, schema};

#[track_caller]
fn gpu(id: &str) -> &'static schema::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("gpu `{id}` missing from the catalog"))
}

#[track_caller]
fn close(actual: Option<f64>, expected: f64, what: &str) {
    let a = actual.unwrap_or_else(|| panic!("{what}: missing"));
    assert!((a - expected).abs() <= expected * 0.005 + 0.05, "{what}: catalog has {a}, datasheet says {expected}");
}

/// The TOML on disk, parsed here independently of build.rs, must equal what the binary embeds.
#[test]
fn embedded_catalog_equals_the_data_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).unwrap();
    let gpus: schema::GpuFile = toml::from_str(&read("gpus.toml")).unwrap();
    let models: schema::ModelFile = toml::from_str(&read("models.toml")).unwrap();
    let diffusion: schema::DiffusionFile = toml::from_str(&read("diffusion.toml")).unwrap();
    let classic: schema::ClassicFile = toml::from_str(&read("classic.toml")).unwrap();
    let c = catalog::catalog();
    assert_eq!(c.gpus, gpus.gpu);
    assert_eq!(c.llms, models.model);
    assert_eq!(c.diffusion, diffusion.diffusion);
    assert_eq!(c.classic, classic.classic);
}

#[test]
fn every_entry_holds_the_invariants() {
    let c = catalog::catalog();
    assert!(c.gpus.len() >= 60, "the catalog holds at least 60 cards, have {}", c.gpus.len());
    assert!(c.llms.iter().filter(|m| m.kind == schema::ModelKind::Llm).count() >= 50, "the catalog holds at least 50 LLM presets");
    assert_eq!(schema::validate_gpus(&c.gpus), Vec::<String>::new());
    assert_eq!(schema::validate_models(&c.llms, &c.diffusion, &c.classic), Vec::<String>::new());
}

#[test]
fn validation_catches_broken_rows() {
    // A hand-broken copy of a real card must be rejected, naming it: this proves the checks bite.
    let mut g = gpu("h100-sxm").clone();
    g.fp8_tflops = Some(100.0); // below bf16: breaks bf16 <= fp8
    g.sources.clear();
    g.street_price_usd = Some(30000.0);
    g.street_price_date = None;
    g.fp16_sparse_tflops = Some(989.4); // a "sparse" figure equal to the dense one: a sparse/dense mix-up
    let errors = schema::validate_gpus(&[g.clone(), g]);
    let all = errors.join("\n");
    for needle in ["must not exceed", "source", "street_price_date", "must be dense", "duplicate id"] {
        assert!(all.contains(needle), "expected an error about `{needle}`, got:\n{all}");
    }
    assert!(errors.iter().all(|e| e.contains("h100-sxm")));
}

#[test]
fn validation_catches_broken_scale_up_and_ecc_rows() {
    // Each hand-broken copy of a real card must fail with the rule it breaks, naming the card.
    #[track_caller]
    fn rejects(g: schema::Gpu, needle: &str) {
        let errors = schema::validate_gpus(&[g]);
        assert!(
            errors.iter().any(|e| e.contains(needle) && e.contains("h100-sxm")),
            "expected an error about `{needle}`, got {errors:?}"
        );
    }
    let h100 = gpu("h100-sxm");
    assert_eq!(schema::validate_gpus(std::slice::from_ref(h100)), Vec::<String>::new());
    // Only two of the three scale-up fields: both the set rule and the NVLink rule fire.
    rejects(schema::Gpu { scale_up_max_gpus: None, ..h100.clone() }, "must be given together");
    rejects(schema::Gpu { scale_up_max_gpus: None, ..h100.clone() }, "nvlink = true needs scale_up_fabric");
    // A "fabric" joining one GPU.
    rejects(schema::Gpu { scale_up_max_gpus: Some(1), ..h100.clone() }, "at least 2");
    // Scale-up bandwidth that disagrees with the NVLink figure.
    rejects(schema::Gpu { scale_up_gb_s: Some(450.0), ..h100.clone() }, "must equal nvlink_gb_s");
    // NVLink card with no fabric fields at all.
    let bare = schema::Gpu { scale_up_fabric: None, scale_up_gb_s: None, scale_up_max_gpus: None, ..h100.clone() };
    rejects(bare, "nvlink = true needs scale_up_fabric");
    // ECC-on-by-default is a GDDR property: HBM3 must be rejected.
    rejects(schema::Gpu { ecc_on_by_default: true, ..h100.clone() }, "ecc_on_by_default needs ecc = true and GDDR");
}

#[test]
fn every_seed_card_is_present_under_its_contract_id() {
    // The cards in the seed articles, under the ids that links and the CLI rely on.
    for id in [
        "rtx-a5000", "rtx-4090", "rtx-4090d", "h100-sxm", "h100-pcie", "h100-nvl", "a100-40gb-sxm", "a100-40gb-pcie",
        "a100-80gb-sxm", "a100-80gb-pcie", "rtx-a6000", "rtx-a4000", "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb",
        "v100-pcie-32gb", "quadro-p6000", "quadro-rtx-4000", "l40s", "l4", "rtx-4000-sff-ada", "rtx-4000-ada", "rtx-3090",
    ] {
        gpu(id);
    }
}

#[test]
fn every_card_has_a_source_and_every_price_a_date() {
    for g in catalog::gpus() {
        assert!(!g.sources.is_empty(), "{} has no source", g.id);
        if g.street_price_usd.is_some() {
            assert!(g.street_price_date.is_some(), "{} street price without a date", g.id);
        }
        for c in &g.cloud {
            assert!(!c.date.is_empty() && !c.source.is_empty(), "{} cloud price without date/source", g.id);
        }
    }
    assert!(catalog::prices_as_of().is_some());
}

// ---- Spot checks against datasheets. Tensor figures are the datasheet's sparse figure halved. ----

/// NVIDIA H100 Tensor Core GPU datasheet (resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet):
/// SXM 80 GB, 3.35 TB/s, FP16 tensor 1,979 TFLOPS with sparsity, 700 W; PCIe 2 TB/s, 1,513 sparse, 350 W;
/// NVL 94 GB, 3.9 TB/s, 1,671 sparse, 350–400 W.
#[test]
fn spot_h100_datasheet() {
    let s = gpu("h100-sxm");
    assert_eq!(s.memory_gib, 80.0);
    close(Some(s.memory_bandwidth_gb_s), 3350.0, "H100 SXM bandwidth");
    close(s.fp16_tflops, 1979.0 / 2.0, "H100 SXM dense FP16");
    close(s.tdp_w, 700.0, "H100 SXM TDP");
    let p = gpu("h100-pcie");
    close(Some(p.memory_bandwidth_gb_s), 2000.0, "H100 PCIe bandwidth");
    close(p.fp16_tflops, 1513.0 / 2.0, "H100 PCIe dense FP16");
    let n = gpu("h100-nvl");
    assert_eq!(n.memory_gib, 94.0);
    close(Some(n.memory_bandwidth_gb_s), 3900.0, "H100 NVL bandwidth");
    close(n.fp16_tflops, 1671.0 / 2.0, "H100 NVL dense FP16");
}

/// NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf): FP16 tensor 312 dense
/// (624 sparse); 40 GB HBM2 1,555 GB/s; 80 GB PCIe 1,935 GB/s; 80 GB SXM 2,039 GB/s; SXM 400 W.
#[test]
fn spot_a100_datasheet() {
    close(Some(gpu("a100-40gb-pcie").memory_bandwidth_gb_s), 1555.0, "A100 40GB PCIe bandwidth");
    close(Some(gpu("a100-40gb-sxm").memory_bandwidth_gb_s), 1555.0, "A100 40GB SXM bandwidth");
    close(Some(gpu("a100-80gb-pcie").memory_bandwidth_gb_s), 1935.0, "A100 80GB PCIe bandwidth");
    close(Some(gpu("a100-80gb-sxm").memory_bandwidth_gb_s), 2039.0, "A100 80GB SXM bandwidth");
    close(gpu("a100-80gb-sxm").fp16_tflops, 312.0, "A100 dense FP16");
    close(gpu("a100-80gb-sxm").tdp_w, 400.0, "A100 SXM TDP");
}

/// NVIDIA Ada GPU architecture whitepaper, appendix table for GeForce RTX 4090: 24 GB GDDR6X,
/// 1,008 GB/s, FP32 82.6, FP16 tensor with FP32 accumulate 165.2 (330.4 sparse), with FP16
/// accumulate 330.3, 450 W.
#[test]
fn spot_rtx_4090_ada_whitepaper() {
    let g = gpu("rtx-4090");
    assert_eq!(g.memory_gib, 24.0);
    close(Some(g.memory_bandwidth_gb_s), 1008.0, "4090 bandwidth");
    close(g.fp32_tflops, 82.6, "4090 FP32");
    close(g.fp16_tflops, 165.2, "4090 FP16 (FP32 acc)");
    close(g.fp16_acc16_tflops, 330.3, "4090 FP16 (FP16 acc)");
    close(g.tdp_w, 450.0, "4090 power");
    assert!(!g.nvlink, "the 4090 has no NVLink");
}

/// NVIDIA RTX A5000 datasheet: 24 GB GDDR6 with ECC, 768 GB/s, 27.8 TFLOPS FP32, 222.2 TFLOPS
/// tensor (sparse) → 111.1 dense, 230 W, NVLink bridge 112.5 GB/s.
#[test]
fn spot_rtx_a5000_datasheet() {
    let g = gpu("rtx-a5000");
    close(Some(g.memory_bandwidth_gb_s), 768.0, "A5000 bandwidth");
    close(g.fp32_tflops, 27.8, "A5000 FP32");
    close(g.fp16_tflops, 222.2 / 2.0, "A5000 dense FP16 tensor");
    close(g.tdp_w, 230.0, "A5000 power");
    assert!(g.nvlink);
}

/// NVIDIA L40S datasheet: 48 GB GDDR6, 864 GB/s, FP16 tensor 733 TFLOPS with sparsity (366 dense;
/// 362.05 in the product table), 350 W. NVIDIA L4 datasheet: 24 GB, 300 GB/s, FP16 242 sparse, 72 W.
#[test]
fn spot_l40s_and_l4_datasheets() {
    let g = gpu("l40s");
    assert_eq!(g.memory_gib, 48.0);
    close(Some(g.memory_bandwidth_gb_s), 864.0, "L40S bandwidth");
    let f = g.fp16_tflops.unwrap();
    assert!((360.0..=367.0).contains(&f), "L40S dense FP16 must be about half of 733, got {f}");
    close(g.tdp_w, 350.0, "L40S power");
    let l4 = gpu("l4");
    close(Some(l4.memory_bandwidth_gb_s), 300.0, "L4 bandwidth");
    close(l4.fp16_tflops, 121.0, "L4 dense FP16");
    close(l4.tdp_w, 72.0, "L4 power");
}

/// NVIDIA RTX 4000 SFF Ada datasheet: 20 GB GDDR6, 280 GB/s, 70 W. NVIDIA RTX A4000 datasheet:
/// 16 GB GDDR6, 448 GB/s, 140 W (seeds README, trap 8).
#[test]
fn spot_rtx_4000_sff_ada_and_a4000() {
    let s = gpu("rtx-4000-sff-ada");
    assert_eq!(s.memory_gib, 20.0);
    close(Some(s.memory_bandwidth_gb_s), 280.0, "4000 SFF bandwidth");
    close(s.tdp_w, 70.0, "4000 SFF power");
    let a = gpu("rtx-a4000");
    assert_eq!(a.memory_gib, 16.0);
    close(Some(a.memory_bandwidth_gb_s), 448.0, "A4000 bandwidth");
    close(a.tdp_w, 140.0, "A4000 power");
}

/// AMD Instinct MI300X data sheet: 192 GB HBM3, 5.3 TB/s, FP16 1,307.4 TFLOPS dense (2,614.9 with
/// sparsity), FP8 2,614.9 dense, 750 W.
#[test]
fn spot_mi300x_datasheet() {
    let g = gpu("mi300x");
    assert_eq!(g.memory_gib, 192.0);
    close(Some(g.memory_bandwidth_gb_s), 5300.0, "MI300X bandwidth");
    close(g.fp16_tflops, 1307.4, "MI300X dense FP16");
    close(g.fp8_tflops, 2614.9, "MI300X dense FP8");
    close(g.tdp_w, 750.0, "MI300X power");
}

/// NVIDIA V100 datasheet: SXM2 900 GB/s, 125 tensor TFLOPS, 15.7 FP32, 300 W; Volta has no BF16.
/// Quadro P6000 (Pascal): 24 GB, 432 GB/s, 12 TFLOPS FP32, no tensor cores (seeds README, trap 7).
/// Quadro RTX 4000: tensor FP16 57 TFLOPS, not the 14.2 shader rate (trap 6).
#[test]
fn spot_v100_p6000_quadro_rtx_4000() {
    let v = gpu("v100-sxm2-32gb");
    close(Some(v.memory_bandwidth_gb_s), 900.0, "V100 SXM2 bandwidth");
    close(v.fp16_tflops, 125.0, "V100 tensor FP16");
    close(v.fp32_tflops, 15.7, "V100 FP32");
    assert!(v.bf16_tflops.is_none(), "Volta has no BF16");
    let p = gpu("quadro-p6000");
    assert!(p.fp16_tflops.is_none() && p.bf16_tflops.is_none(), "the P6000 has no tensor cores");
    close(p.fp32_tflops, 12.0, "P6000 FP32");
    close(gpu("quadro-rtx-4000").fp16_tflops, 57.0, "Quadro RTX 4000 tensor FP16");
}

#[test]
fn nearest_suggests_close_ids() {
    let ids = catalog::nearest("rtx4090", catalog::gpus().iter().map(|g| g.id.as_str()));
    assert!(ids.contains(&"rtx-4090"), "{ids:?}");
    let ids = catalog::nearest("h100", catalog::gpus().iter().map(|g| g.id.as_str()));
    assert!(ids.iter().all(|i| i.contains("h100")), "{ids:?}");
}

/// The definition of `nearest` written out plainly: every id scored (0 for a substring either
/// way, else the edit distance), sorted by (score, id), the first three.
fn nearest_by_definition<'a>(query: &str, ids: &[&'a str]) -> Vec<&'a str> {
    let q = query.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = ids
        .iter()
        .map(|id| {
            (
                if id.contains(q.as_str()) || (!id.is_empty() && q.contains(id)) {
                    0
                } else {
                    catalog::edit_distance(&q, id)
                },
                *id,
            )
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, id)| id).collect()
}

#[test]
fn nearest_skips_no_id_the_definition_would_pick() {
    // The pruned search must return exactly what scoring every id returns: typos, anagrams (whose
    // character-count floor is 0), other scripts, long pasted garbage and the empty string.
    let gpus: Vec<&str> = catalog::gpus().iter().map(|g| g.id.as_str()).collect();
    let models: Vec<&str> = catalog::model_ids().collect();
    let long = "x".repeat(300) + "rtx-4090";
    let queries = [
        "rtx4090",
        "h100",
        "a100-80",
        "0904-xtr",
        "llama3-8b",
        "qwen-2.5-7b",
        "ллама",
        "通义千问",
        "",
        "mi300",
        "b200x",
        &long,
        "Llama-3.1-70B",
        "sdxl",
        "resnet",
    ];
    for ids in [&gpus, &models] {
        for q in queries {
            assert_eq!(
                catalog::nearest(q, ids.iter().copied()),
                nearest_by_definition(q, ids),
                "query {q:?}"
            );
        }
    }
}

#[test]
fn edit_distance_matches_hand_counts() {
    // kitten → sitten → sittin → sitting: three edits (the textbook Levenshtein example).
    assert_eq!(catalog::edit_distance("kitten", "sitting"), 3);
    assert_eq!(catalog::edit_distance("", "abc"), 3);
    assert_eq!(catalog::edit_distance("h100", "h100"), 0);
    assert_eq!(catalog::edit_distance("rtx4090", "rtx-4090"), 1);
}

/// The catalog search and the sort by name lowercase with `to_ascii_lowercase` (the Unicode case
/// tables of `str::to_lowercase` cost the web build 10 KB brotli), which is exact only while every
/// card's name and architecture is ASCII.
#[test]
fn names_and_architectures_are_ascii() {
    for g in catalog::gpus() {
        assert!(g.name.is_ascii() && g.architecture.is_ascii(), "{}: {} / {}", g.id, g.name, g.architecture);
    }
}

// ---- Scale-up fabrics, ECC defaults, the A10G and the P100 (each expected value cites its source). ----

/// AMD CDNA 3 white paper: "P2P RING PEAK AGGREGATE I/O BANDWIDTH: 896 GB/s (8 GPUs)"; MI300X data
/// sheet: 7 Infinity Fabric links at 128 GB/s peak each (7 x 128 = 896); the 8 OAMs of the MI300X
/// platform are fully connected.
#[test]
fn spot_mi300x_infinity_fabric() {
    let g = gpu("mi300x");
    let s = g.scale_up().expect("MI300X has a scale-up fabric");
    close(Some(s.gb_s), 7.0 * 128.0, "MI300X Infinity Fabric bandwidth");
    assert_eq!(s.max_gpus, 8, "MI300X: 8 OAMs all-to-all");
    assert_eq!(g.scale_up_fabric.as_deref(), Some("Infinity Fabric"));
    assert!(!g.nvlink, "Infinity Fabric is not NVLink");
}

/// NVIDIA A100 datasheet, PCIe column: "NVIDIA NVLink Bridge for 2 GPUs: 600GB/s"; SXM column
/// "NVLink: 600GB/s" on HGX A100 boards of 8.
#[test]
fn spot_a100_pcie_nvlink_bridge_joins_two() {
    for id in ["a100-40gb-pcie", "a100-80gb-pcie"] {
        let g = gpu(id);
        let s = g.scale_up().unwrap_or_else(|| panic!("{id} has an NVLink bridge"));
        assert_eq!(s.max_gpus, 2, "{id}: the bridge joins 2 cards");
        close(Some(s.gb_s), 600.0, "A100 PCIe NVLink bridge bandwidth");
        assert_eq!(g.scale_up_fabric.as_deref(), Some("NVLink bridge"), "{id}");
    }
    assert_eq!(gpu("a100-80gb-sxm").scale_up().map(|s| s.max_gpus), Some(8));
}

/// NVIDIA H100 datasheet, SXM column: "NVIDIA NVLink: 900GB/s"; HGX H100 / DGX H100 with 8 GPUs on
/// NVSwitch. The scale-up figure must be the same number as the `nvlink_gb_s` the JSON output uses.
#[test]
fn spot_h100_sxm_nvlink() {
    let g = gpu("h100-sxm");
    let s = g.scale_up().expect("H100 SXM has NVLink");
    close(Some(s.gb_s), 900.0, "H100 SXM NVLink bandwidth");
    assert_eq!(s.max_gpus, 8);
    assert_eq!(g.nvlink_gb_s, Some(s.gb_s));
    assert!(g.scale_up_fabric.as_deref().is_some_and(|f| f.contains("NVSwitch")));
}

/// Every NVLink card carries the fabric as numbers, equal to `nvlink_gb_s`, and no PCIe-only card
/// without a documented fabric has one. Intel Gaudi docs (Network Configuration): Gaudi 3 scale-up
/// is "21*200Gbps = ... 1050 GB/s bidirectional", Gaudi 2 "21*100Gbps = ... 525 GB/s
/// bidirectional", 8 cards per box.
#[test]
fn scale_up_fields_cover_every_fabric() {
    for g in catalog::gpus() {
        if g.nvlink {
            let s = g.scale_up().unwrap_or_else(|| panic!("{}: NVLink card without scale-up numbers", g.id));
            assert_eq!(Some(s.gb_s), g.nvlink_gb_s, "{}", g.id);
        }
        if g.interconnect.is_some() {
            assert!(g.scale_up().is_some(), "{}: has an interconnect but no scale-up numbers", g.id);
        }
    }
    assert!(gpu("rtx-4090").scale_up().is_none(), "the 4090 has no NVLink");
    assert!(gpu("l40s").scale_up().is_none(), "the L40S has no NVLink");
    let g3 = gpu("gaudi3").scale_up().expect("Gaudi 3 RoCE");
    close(Some(g3.gb_s), 21.0 * 200.0 / 8.0 * 2.0, "Gaudi 3 scale-up (21 x 200 Gb/s, both directions)");
    let g2 = gpu("gaudi2").scale_up().expect("Gaudi 2 RoCE");
    close(Some(g2.gb_s), 21.0 * 100.0 / 8.0 * 2.0, "Gaudi 2 scale-up (21 x 100 Gb/s, both directions)");
    assert_eq!((g3.max_gpus, g2.max_gpus), (8, 8));
    assert_eq!(gpu("gb200").scale_up().map(|s| s.max_gpus), Some(72), "GB200 NVL72");
}

/// ECC ships enabled on NVIDIA's GDDR6 datacenter cards: NVIDIA developer forum "NVIDIA T4 has only
/// 15g of memory?" (nvidia-smi: 15079MiB of 16 GB, ECC column 0); published nvidia-smi for the L4
/// reads 23034MiB of 24 GB. CUDA Best Practices Guide: with ECC on, GDDR "available DRAM is reduced
/// by 6.25%". Consumer GeForce and HBM cards stay false.
#[test]
fn spot_ecc_on_by_default() {
    for id in ["l4", "t4", "a10", "a10g", "l40s", "l40", "l20", "a40"] {
        let g = gpu(id);
        assert!(g.ecc_on_by_default, "{id} ships with ECC on");
        assert!(g.memory_type.as_deref().is_some_and(|t| t.starts_with("GDDR")), "{id} is a GDDR card");
    }
    // 16 GiB x 15/16 = 15,360 MiB, the T4's nvidia-smi total on current drivers.
    assert_eq!(gpu("t4").memory_gib * 1024.0 * 15.0 / 16.0, 15_360.0);
    for id in ["rtx-4090", "h100-sxm", "a100-80gb-sxm"] {
        assert!(!gpu(id).ecc_on_by_default, "{id}: GeForce has no ECC; HBM ECC costs no capacity");
    }
}

/// NVIDIA A10G datasheet (hosted by AWS, NVIDIA_AWS_A10G_DataSheet_FINAL_02_17_2022.pdf), as quoted
/// by independent readers: FP16/BF16 tensor 70 TFLOPS dense (140 sparse), INT8 140 TOPS dense. The
/// A10 datasheet's 125 TFLOPS does not apply. NVIDIA Tesla P100 PCIe datasheet: "Half-Precision
/// Performance 18.7 TeraFLOPS", FP32 9.3; no tensor cores, so the tensor field stays empty.
#[test]
fn spot_a10g_and_p100() {
    let g = gpu("a10g");
    close(g.fp16_tflops, 70.0, "A10G dense FP16 tensor");
    close(g.bf16_tflops, 70.0, "A10G dense BF16 tensor");
    close(g.int8_tops, 140.0, "A10G dense INT8 tensor");
    close(g.fp16_sparse_tflops, 140.0, "A10G sparse FP16 tensor");
    assert!(g.fp8_tflops.is_none(), "Ampere has no FP8");
    let p = gpu("p100-16gb");
    assert!(p.name.contains("PCIe"), "the catalog's P100 is the PCIe card: {}", p.name);
    close(p.fp16_vector_tflops, 18.7, "P100 PCIe vector FP16");
    close(p.fp32_tflops, 9.3, "P100 PCIe FP32");
    assert!(p.fp16_tflops.is_none() && p.bf16_tflops.is_none(), "the P100 has no tensor cores");
}

#[test]
fn every_contract_card_is_present_under_its_id() {
    // These ids are fixed: links and the CLI rely on them.
    for id in [
        "b300", "rtx-5070", "rtx-5060-ti-8gb", "rtx-pro-5000-blackwell", "rtx-pro-4500-blackwell", "rtx-pro-4000-blackwell",
        "dgx-spark", "mi350x", "rx-9070-xt", "ryzen-ai-max-395", "arc-b580", "arc-pro-b60", "apple-m4-pro", "ascend-910b",
        "rtx-2080", "rtx-3070", "rtx-3060-ti", "rx-6900-xt", "rx-7900-xt", "arc-a770",
    ] {
        let g = gpu(id);
        assert!(!g.backends.is_empty(), "{id}: each of these cards names the back-ends that run on it");
    }
}

/// HGX B300 column of NVIDIA's HGX page, 8 GPUs: FP4 144 PFLOPS sparse | 108 dense, FP8/FP6 72 (sparse),
/// FP16/BF16 36 (sparse), FP32 600 TFLOPS, FP64 10 TFLOPS, 2.3 TB. Per GPU: divide by 8, halve sparse.
#[test]
fn spot_b300_hgx_table() {
    let g = gpu("b300");
    close(g.fp4_tflops, 108_000.0 / 8.0, "B300 dense FP4");
    assert_eq!(g.fp4_sparse_tflops, None, "B300's sparse FP4 is 4/3 of dense, not the 2:4 2x the check holds");
    close(g.fp8_tflops, 72_000.0 / 8.0 / 2.0, "B300 FP8");
    close(g.fp6_tflops, 72_000.0 / 8.0 / 2.0, "B300 FP6 (the FP8/FP6 row)");
    close(g.bf16_tflops, 36_000.0 / 8.0 / 2.0, "B300 BF16");
    close(g.fp32_tflops, 600.0 / 8.0, "B300 FP32");
    close(g.fp64_tflops, 10.0 / 8.0, "B300 FP64");
    close(Some(g.memory_gib), 2304.0 / 8.0, "B300 memory");
    assert_eq!(g.int8_tops, None, "B300 INT8 (2 POPS sparse per 8 GPUs) would break bf16 <= fp8 <= int8");
}

/// AMD MI350X: the MI355X rates scaled by the clock ratio 2.2 / 2.4 GHz land on AMD's printed 2.3 PF FP16,
/// 4.6 PF FP8 and 9.2 PF MXFP4/MXFP6 (MI350X page); MI355X MXFP4 is 10.1 PF (brochure).
#[test]
fn spot_mi350x_and_mi355x_low_precision() {
    let (a, b) = (gpu("mi350x"), gpu("mi355x"));
    assert!((a.fp16_tflops.unwrap() / 1000.0 - 2.3).abs() < 0.05);
    assert!((a.fp8_tflops.unwrap() / 1000.0 - 4.6).abs() < 0.05);
    assert!((a.fp4_tflops.unwrap() / 1000.0 - 9.2).abs() < 0.05);
    assert_eq!(a.fp6_tflops, a.fp4_tflops, "CDNA 4 runs MXFP6 at the MXFP4 rate");
    assert!((b.fp4_tflops.unwrap() / 1000.0 - 10.1).abs() < 0.05);
    close(a.fp16_tflops, b.fp16_tflops.unwrap() * 2.2 / 2.4, "MI350X FP16 = MI355X x clock ratio");
}

/// RTX 50 and RTX PRO Blackwell: NVIDIA's 'AI TOPS' is FP4 with sparsity, so dense FP4 is half of it
/// (RTX 5070: 988; RTX PRO 5000/4500/4000: 2,064 / 1,687 / 1,247), and the RTX 5070's FP32 is
/// 48 SMs x 256 FLOP/clk x 2.51 GHz = 30.8 TFLOPS.
#[test]
fn spot_blackwell_ai_tops_are_sparse_fp4() {
    for (id, ai_tops) in [("rtx-5070", 988.0), ("rtx-pro-5000-blackwell", 2064.0), ("rtx-pro-4500-blackwell", 1687.0), ("rtx-pro-4000-blackwell", 1247.0), ("dgx-spark", 1000.0)] {
        close(gpu(id).fp4_tflops, ai_tops / 2.0, id);
    }
    close(gpu("rtx-5070").fp32_tflops, 48.0 * 256.0 * 2.51 / 1000.0, "RTX 5070 FP32");
}

/// Home-lab cards against their whitepapers and spec pages: RTX 2080 (Turing whitepaper, reference: FP16
/// acc16 80.5, INT8 161.1, 448 GB/s), RTX 3070 (GA102 whitepaper: FP16 acc16 81.3), RX 7900 XT (84 CUs x
/// 256 FLOP/clk x 2.4 GHz = 51.6), Arc B580 (233 INT8 TOPS, 456 GB/s).
#[test]
fn spot_home_lab_cards() {
    close(gpu("rtx-2080").fp16_acc16_tflops, 80.5, "RTX 2080 FP16 acc16");
    close(gpu("rtx-2080").int8_tops, 161.1, "RTX 2080 INT8");
    close(gpu("rtx-3070").fp16_acc16_tflops, 81.3, "RTX 3070 FP16 acc16");
    close(gpu("rx-7900-xt").fp32_tflops, 84.0 * 256.0 * 2.4 / 1000.0, "RX 7900 XT FP32");
    close(gpu("arc-b580").int8_tops, 233.0, "Arc B580 INT8");
    close(Some(gpu("arc-b580").memory_bandwidth_gb_s), 192.0 / 8.0 * 19.0, "Arc B580 bandwidth = 192 bit x 19 Gbps");
    close(Some(gpu("ryzen-ai-max-395").memory_bandwidth_gb_s), 256.0 / 8.0 * 8.0, "Strix Halo = 256 bit x 8,000 MT/s");
}

/// Unified-memory platforms list the sizes they are sold with, and the default is one of them.
#[test]
fn unified_memory_platforms_list_their_sizes() {
    assert_eq!(gpu("apple-m4-pro").memory_options_gib, vec![24.0, 48.0, 64.0]);
    assert_eq!(gpu("ryzen-ai-max-395").memory_options_gib, vec![32.0, 64.0, 128.0]);
    assert_eq!(gpu("dgx-spark").memory_options_gib, vec![128.0]);
    for g in catalog::gpus().iter().filter(|g| g.unified_memory) {
        assert!(g.memory_options_gib.contains(&g.memory_gib), "{}: options must hold the default", g.id);
    }
}

#[test]
fn validation_catches_broken_fp6_fp4_options_and_backends() {
    #[track_caller]
    fn rejects(g: schema::Gpu, needle: &str) {
        let errors = schema::validate_gpus(&[g]);
        assert!(errors.iter().any(|e| e.contains(needle)), "expected an error about `{needle}`, got {errors:?}");
    }
    let b300 = gpu("b300");
    let spark = gpu("dgx-spark");
    assert_eq!(schema::validate_gpus(&[b300.clone(), spark.clone()]), Vec::<String>::new());
    rejects(schema::Gpu { fp6_tflops: Some(20_000.0), ..b300.clone() }, "fp6_tflops (20000) must not exceed fp4_tflops");
    rejects(schema::Gpu { fp4_sparse_tflops: Some(18_000.0), ..b300.clone() }, "fp4_tflops must be dense: the sparse figure 18000 is 1.33x");
    rejects(schema::Gpu { fp6_tflops: Some(90_000.0), ..b300.clone() }, "plausible range");
    rejects(schema::Gpu { backends: vec!["opencl".into()], ..b300.clone() }, "unknown backend `opencl`");
    rejects(schema::Gpu { backends: vec!["cuda".into(), "cuda".into()], ..b300.clone() }, "listed twice");
    rejects(schema::Gpu { memory_options_gib: vec![64.0], ..spark.clone() }, "must include memory_gib");
    rejects(schema::Gpu { memory_options_gib: vec![128.0, 64.0], ..spark.clone() }, "ascending");
    rejects(schema::Gpu { memory_options_gib: vec![288.0], ..b300.clone() }, "unified-memory platforms");
}
