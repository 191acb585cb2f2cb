//! Layer 3, configuration: the settings table and the typed settings read through it
//! (`tuneables.json`), the trigger-rule file (`trigger_rules.yaml`, with cairn's built-in rules),
//! the settings in force with their errors, and the watcher that keeps them live.

pub mod live;
pub mod rules;
pub mod state;
pub mod table;
pub mod tuneables;

pub use live::LiveConfig;
pub use table::MAX_FILE_BYTES;
pub use state::ConfigState;
pub use tuneables::{InterruptMode, Tuneables};
