import CTesseraSignals

/// The executable's signal handling (Sources/CTesseraSignals): process-wide state belongs to the
/// program, never to the library, so a program embedding Tessera keeps its own handlers.
enum Signals {
    /// Makes an interrupt (Ctrl-C, SIGTERM, SIGHUP), a crash (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE,
    /// SIGTRAP), SIGXFSZ or SIGPIPE (unless ignored) delete the temporary files being written before the
    /// signal acts as it did before (the process ends of it); an `exit()` during a write (a plugin's)
    /// removes them and makes the status 1. An OOM kill (SIGKILL) cannot be caught: it leaves its `.tmp`
    /// file.
    static func removeTemporaryFilesOnInterrupt() {
        tsr_cleanup_install_signal_handlers()
    }

    /// Makes the first Ctrl-C (SIGINT) or SIGTERM only raise ``interrupted``, for a command that stops its
    /// work cleanly on it (`tessera run` cancels its run; `tessera batch` also writes its report); a
    /// second one removes the temporary files being written and ends the process, as
    /// ``removeTemporaryFilesOnInterrupt()`` does.
    static func catchInterrupts() {
        tsr_interrupt_install()
    }

    /// Whether Ctrl-C arrived since ``catchInterrupts()``.
    static var interrupted: Bool { tsr_interrupted() != 0 }
}
