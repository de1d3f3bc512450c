#pragma once

#include "manpage.h"

#include <QCoreApplication>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

namespace lantern::cli {

class CommandContext;

/** One lanternd command. Its synopsis is the only list of the options it accepts: main() checks
    a command line against it (requireOnly), and --help and the manual page print it, so what
    the parser takes and what the documentation says cannot drift. */
struct CommandSpec {
    QString words;     // "checkin", "campaign create"
    QString synopsis;  // its options as typed: --name VALUE takes a value, a --name alone is a switch
    QString text;      // what it does (translated)
    int (*run)(CommandContext &) = nullptr;

    /** The command and its synopsis, as typed. */
    QString usageLine() const;
    /** The --names of the synopsis that take a value. */
    QStringList options() const;
    /** The --names of the synopsis that take none. */
    QStringList switches() const;
};

/** lanternd's commands, global options, environment and exit codes: what --help prints and what
    --help-man writes as lanternd(1). */
class CommandReference final {
    Q_DECLARE_TR_FUNCTIONS(lantern::cli::CommandReference)

public:
    static QList<CommandSpec> commands();
    /** Every switch of any command (they take no value wherever they appear on the line). */
    static QSet<QString> switchNames();
    /** `lanternd --help`. */
    static QString usage();
    /** lanternd(1). Throws std::logic_error when a global option has no description. */
    static help::ManPage manPage();

private:
    static QList<help::ManEntry> globalOptions();
    static QList<help::ManEntry> environment();
    static QList<help::ManEntry> exitStatus();
};

} // namespace lantern::cli
