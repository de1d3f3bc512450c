#pragma once

class QProcess;

namespace lantern {

/** Makes the program `process` starts end when the thread that starts it ends, however that
    happens (an abort, a crash, SIGKILL): the kernel sends it SIGTERM (Linux's
    PR_SET_PDEATHSIG). For servers a process starts for itself (the console's sandbox, the
    tests' and benches' private servers), which must never outlive it. The signal follows the
    starting thread, not the process: start from a thread that lives as long as the server
    should. Elsewhere than on Linux it does nothing. */
void endWithStarter(QProcess &process);

} // namespace lantern
