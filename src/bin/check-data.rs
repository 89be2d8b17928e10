//! `make check-data`: lists every card and model preset that lacks an optional field, so gaps in
//! the catalog are visible rather than silent. It only reports; it never fails.

use gpu_advisor::catalog;

/// Prints `id` and the names of the checks that fail, if any; returns how many failed.
fn report(id: &str, width: usize, checks: &[(&str, bool)]) -> usize {
    let missing: Vec<&str> = checks.iter().filter(|(_, ok)| !ok).map(|(n, _)| *n).collect();
    if !missing.is_empty() {
        println!("  {id:<width$} {}", missing.join(", "));
    }
    missing.len()
}

fn main() {
    let c = catalog::catalog();
    let mut gaps = 0;
    println!("GPUs missing optional fields ({} cards):", c.gpus.len());
    for g in &c.gpus {
        let checks: [(&str, bool); 16] = [
            ("memory_type", g.memory_type.is_some()),
            ("fp32_tflops", g.fp32_tflops.is_some()),
            ("fp64_tflops", g.fp64_tflops.is_some()),
            ("tf32_tflops", g.tf32_tflops.is_some()),
            ("fp16_tflops", g.fp16_tflops.is_some()),
            ("bf16_tflops", g.bf16_tflops.is_some()),
            ("fp8_tflops", g.fp8_tflops.is_some()),
            ("int8_tops", g.int8_tops.is_some()),
            ("tdp_w", g.tdp_w.is_some()),
            ("pcie_gen", g.pcie_gen.is_some()),
            ("ecc", g.ecc.is_some()),
            ("launch_price_usd", g.launch_price_usd.is_some()),
            ("street_price_usd", g.street_price_usd.is_some()),
            ("cloud prices", !g.cloud.is_empty()),
            ("backends", !g.backends.is_empty()),
            ("memory_options_gib", !g.unified_memory || !g.memory_options_gib.is_empty()),
        ];
        gaps += report(&g.id, 26, &checks);
    }
    println!("\nLLM presets missing optional fields ({} presets):", c.llms.len());
    for m in &c.llms {
        let checks: [(&str, bool); 4] = [
            ("intermediate_size", m.intermediate_size.is_some()),
            ("activation", m.activation.is_some()),
            ("gated_ffn", m.gated_ffn.is_some()),
            ("released", m.released.is_some()),
        ];
        gaps += report(&m.id, 32, &checks);
    }
    println!("\nDiffusion and classic presets missing optional fields:");
    for d in &c.diffusion {
        gaps += report(&d.id, 32, &[("step_flops_source", d.step_flops_source.is_some()), ("released", d.released.is_some())]);
    }
    for m in &c.classic {
        let checks = [("flops_source", m.flops_source.is_some()), ("activation_mib_per_sample", m.activation_mib_per_sample.is_some()), ("released", m.released.is_some())];
        gaps += report(&m.id, 32, &checks);
    }
    println!("\n{gaps} optional values missing in all. Absent means unknown or not applicable, never zero.");
}
