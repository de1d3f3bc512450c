#include "core/childprocess.h"

#include <QProcess>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>
#endif

namespace lantern {

void endWithStarter(QProcess &process)
{
#ifdef Q_OS_LINUX
    const pid_t starter = ::getpid();
    process.setChildProcessModifier([starter] {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != starter)
            ::_exit(127);  // the starter ended before the signal was asked for
    });
#else
    Q_UNUSED(process)
#endif
}

} // namespace lantern
