#ifndef CTESSERASIGNALS_H
#define CTESSERASIGNALS_H

// The `tessera` executable's signal handlers (only TesseraCLI depends on this target: a library must not
// take over its host's signals).

/// Installs the handlers that delete the temporary files being written and then let the signal act as
/// before (die of it, so the shell sees the usual status, 130 for Ctrl-C): interrupts (SIGINT, SIGTERM,
/// SIGHUP), crashes (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP, on a stack of their own on the
/// main thread), SIGXFSZ and SIGPIPE unless ignored; and an exit() during a write (a plugin's) removes
/// the file and makes the status 1.
void tsr_cleanup_install_signal_handlers(void);
/// Makes the first SIGINT or SIGTERM only set a flag (read with tsr_interrupted) for a program that stops
/// its work cleanly; a second one still removes the temporary files and dies of the signal.
void tsr_interrupt_install(void);
/// 1 once SIGINT or SIGTERM arrived after tsr_interrupt_install.
int tsr_interrupted(void);

#endif
