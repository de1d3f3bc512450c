#pragma once

#include "manpage.h"

#include <QCoreApplication>
#include <QStringList>

namespace lantern {

/** What `lantern` prints without opening a window: --help, --version and lantern(1)
    (--help-man). They run on a QCoreApplication, so they need no display or platform plugin. */
class ConsoleManual final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ConsoleManual)

public:
    /** Whether the command line only asks for text (help, version or the manual page). */
    static bool asksForText(int argc, char *argv[]);
    /** Prints it and returns the exit status (2 for a malformed command line). */
    static int print(int argc, char *argv[]);
    /** lantern(1), from the console's option table (ConsoleOptions::commandLineOptions). */
    static help::ManPage manPage();
};

} // namespace lantern
