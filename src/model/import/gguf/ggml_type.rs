//! ggml's tensor types: their names, block layouts, and the ones Glimpse reads.

use crate::model::import::quant::{QuantKind, BLOCK};

/// A ggml tensor type (the ids of ggml.h's `ggml_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GgmlType(pub u32);

impl GgmlType {
    pub const F32: GgmlType = GgmlType(0);
    pub const F16: GgmlType = GgmlType(1);
    pub const Q4_0: GgmlType = GgmlType(2);
    pub const Q4_1: GgmlType = GgmlType(3);
    pub const Q8_0: GgmlType = GgmlType(8);
    pub const BF16: GgmlType = GgmlType(30);

    pub fn name(self) -> String {
        let known = match self.0 {
            0 => "F32",
            1 => "F16",
            2 => "Q4_0",
            3 => "Q4_1",
            6 => "Q5_0",
            7 => "Q5_1",
            8 => "Q8_0",
            9 => "Q8_1",
            10 => "Q2_K",
            11 => "Q3_K",
            12 => "Q4_K",
            13 => "Q5_K",
            14 => "Q6_K",
            15 => "Q8_K",
            16 => "IQ2_XXS",
            17 => "IQ2_XS",
            18 => "IQ3_XXS",
            19 => "IQ1_S",
            20 => "IQ4_NL",
            21 => "IQ3_S",
            22 => "IQ2_S",
            23 => "IQ4_XS",
            24 => "I8",
            25 => "I16",
            26 => "I32",
            27 => "I64",
            28 => "F64",
            29 => "IQ1_M",
            30 => "BF16",
            34 => "TQ1_0",
            35 => "TQ2_0",
            39 => "MXFP4",
            other => return format!("type {other}"),
        };
        known.to_string()
    }

    /// (values per block, bytes per block) for the types Glimpse reads.
    pub(super) fn layout(self) -> Option<(u64, u64)> {
        match self {
            GgmlType::F32 => Some((1, 4)),
            GgmlType::F16 | GgmlType::BF16 => Some((1, 2)),
            _ => self.quant().map(|q| (BLOCK as u64, q.block_bytes() as u64)),
        }
    }

    pub(super) fn quant(self) -> Option<QuantKind> {
        match self {
            GgmlType::Q8_0 => Some(QuantKind::Q8_0),
            GgmlType::Q4_0 => Some(QuantKind::Q4_0),
            GgmlType::Q4_1 => Some(QuantKind::Q4_1),
            _ => None,
        }
    }

    pub fn is_supported(self) -> bool {
        self.layout().is_some()
    }
}

pub(super) const SUPPORTED: &str = "F32, F16, BF16, Q8_0, Q4_0 and Q4_1";
