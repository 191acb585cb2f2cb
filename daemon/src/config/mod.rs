//! Layer 3, configuration: the settings table and the typed settings read through it
//! (`tuneables.json`), the trigger-rule file (`trigger_rules.yaml`, with cairn's built-in rules),
//! the settings in force with their errors, and the watcher that keeps them live.

/// Largest config file cairn reads (1 MiB): a settings file is a few KiB, and a file past this
/// is a mistake (or `/dev/zero` behind a symlink), reported as such.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

pub mod live;
pub mod rules;
pub mod state;
pub mod table;
pub mod tuneables;

pub use live::LiveConfig;
pub use state::ConfigState;
pub use tuneables::{InterruptMode, Tuneables};
