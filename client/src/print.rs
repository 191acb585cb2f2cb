//! Writing to the terminal without panicking. When stdout is a pipe whose reader went away
//! (`cairn seed --list | head -5`), a command stops writing and exits 0, as the reader asked;
//! another write error ends it with exit 1. Messages to stderr never fail a command.

use std::io::{self, Write};

/// Stdout for commands that write a stream (`export`, `logs`).
pub struct Out(io::StdoutLock<'static>);

impl Out {
    pub fn new() -> Out {
        Out(io::stdout().lock())
    }
}

/// Ends the process quietly when the reader has gone.
fn closed<T>(r: io::Result<T>) -> io::Result<T> {
    if let Err(e) = &r
        && e.kind() == io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
    r
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        closed(self.0.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        closed(self.0.flush())
    }
}

/// Writes to stdout (the `outln!` macro).
pub fn stdout(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut out = Out::new();
    let written = out.write_fmt(args).and_then(|_| if newline { out.write_all(b"\n") } else { Ok(()) });
    if let Err(e) = written {
        // What the command did is done (a memory added is stored): the line it could not print
        // (an id, a count) goes to stderr, so that a script does not lose it, or do it again.
        let line = args.to_string();
        let shown: String = line.chars().take(2000).collect();
        stderr(format_args!("cairn: cannot write the output: {e}; it was: {shown}"), true);
        std::process::exit(1);
    }
}

/// Writes to stderr (the `err!` and `errln!` macros); a failure is ignored.
pub fn stderr(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|_| if newline { err.write_all(b"\n") } else { Ok(()) });
}

macro_rules! outln {
    () => { $crate::print::stdout(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::print::stdout(format_args!($($arg)*), true) };
}

macro_rules! err {
    ($($arg:tt)*) => { $crate::print::stderr(format_args!($($arg)*), false) };
}

macro_rules! errln {
    () => { $crate::print::stderr(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::print::stderr(format_args!($($arg)*), true) };
}
