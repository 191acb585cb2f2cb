//! Framing shared by both ends: length-delimited JSON over a Unix stream.
//!
//! JSON rather than a binary codec because it degrades gracefully across versions: a peer that
//! meets an unknown method or field fails that one request instead of misreading bytes.

use tarpc::serde_transport::Transport;
use tarpc::tokio_serde::formats::Json;
use tarpc::tokio_util::codec::LengthDelimitedCodec;
use tokio::net::UnixStream;

/// Largest frame either side accepts; exports and imports are paged well below it.
pub const MAX_FRAME_BYTES: usize = 32 * 1024 * 1024;

/// Wraps a connected stream in the protocol's framing and codec.
pub fn wrap<Item, SinkItem>(stream: UnixStream) -> Transport<UnixStream, Item, SinkItem, Json<Item, SinkItem>>
where
    Item: for<'de> serde::Deserialize<'de>,
    SinkItem: serde::Serialize,
{
    let framed = LengthDelimitedCodec::builder()
        .max_frame_length(MAX_FRAME_BYTES)
        .new_framed(stream);
    tarpc::serde_transport::new(framed, Json::default())
}
