// The `tessera` executable's signal handling: process-wide state, which belongs to the program and never
// to the library (a program embedding Tessera keeps its own handlers). The library only keeps the list of
// the temporary files it is writing (CImageShims' tsr_cleanup_register); these handlers unlink them before
// the signal acts, and turn the first Ctrl-C of `tessera run` and `tessera batch` into a cancellation.
#include "CTesseraSignals.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// From CImageShims (the codecs' C, which the library links): both async-signal-safe.
void tsr_cleanup_unlink_all(void);
int tsr_cleanup_writing(void);

// What each signal did before: the handler restores it and lets it act (Swift's backtracer, a host's
// own handler, or the default: dying of the signal).
// SIGXCPU and SIGQUIT: a CPU-time limit (ulimit -t, a batch scheduler's) and Ctrl-\ (quit) end the process too.
static const int tsr_cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,  SIGABRT,
                                          SIGILL, SIGFPE,  SIGTRAP, SIGXFSZ, SIGXCPU, SIGPIPE};
enum { TSR_CLEANUP_SIGNALS = sizeof tsr_cleanup_signals / sizeof tsr_cleanup_signals[0] };
static struct sigaction tsr_cleanup_previous[TSR_CLEANUP_SIGNALS];

static void tsr_cleanup_on_signal(int sig) {
    tsr_cleanup_unlink_all();
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    const struct sigaction *previous = &fallback;
    for (int i = 0; i < TSR_CLEANUP_SIGNALS; i++) {
        if (tsr_cleanup_signals[i] == sig && tsr_cleanup_previous[i].sa_handler != SIG_IGN) {
            previous = &tsr_cleanup_previous[i];
        }
    }
    sigaction(sig, previous, NULL);
    // Delivered again once this handler returns (it is blocked while the handler runs); a fault that
    // returns re-executes the faulting instruction, which raises it again too.
    raise(sig);
}

// exit() while a file is being written is never Tessera's own doing (it returns errors): a plugin or a
// library ended the process. The partial file goes, and the status says it failed.
static void tsr_cleanup_at_exit(void) {
    if (!tsr_cleanup_writing()) return;
    tsr_cleanup_unlink_all();
    static const char message[] =
        "tessera: the process was ended while writing a file (by exit() in a plugin or library); "
        "the partial file was removed\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    _exit(1);
}

// A stack for the handler, so that it still runs when the main thread's stack overflowed.
static char tsr_cleanup_stack[64 * 1024];

void tsr_cleanup_install_signal_handlers(void) {
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = tsr_cleanup_stack;
    stack.ss_size = sizeof tsr_cleanup_stack;
    sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = tsr_cleanup_on_signal;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    // Installed again after a run's own SIGINT handling: what came before Tessera is remembered once.
    static int installed = 0;
    for (int i = 0; i < TSR_CLEANUP_SIGNALS; i++) {
        struct sigaction current;
        sigaction(tsr_cleanup_signals[i], NULL, &current);
        // An ignored signal stays ignored (a program that ignores SIGPIPE or SIGXFSZ gets EPIPE or
        // EFBIG from write, and its error path removes the file).
        if (current.sa_handler == SIG_IGN) continue;
        if (!installed) tsr_cleanup_previous[i] = current;
        sigaction(tsr_cleanup_signals[i], &action, NULL);
    }
    if (!installed) atexit(tsr_cleanup_at_exit);
    installed = 1;
    // A parent may have left these blocked (the mask survives exec): a command must still stop on Ctrl-C.
    sigset_t interrupts;
    sigemptyset(&interrupts);
    sigaddset(&interrupts, SIGINT);
    sigaddset(&interrupts, SIGTERM);
    sigaddset(&interrupts, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &interrupts, NULL);
}

static volatile sig_atomic_t tsr_interrupts = 0;

static void tsr_count_interrupt(int sig) {
    // The first Ctrl-C (or SIGTERM: a cluster's time limit, scancel, kubectl delete) asks the run to
    // stop; a second one ends the process at once.
    if (tsr_interrupts > 0) tsr_cleanup_on_signal(sig);
    tsr_interrupts = 1;
}

void tsr_interrupt_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = tsr_count_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

int tsr_interrupted(void) { return tsr_interrupts; }
