#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace lantern::help {

/** One item of a manual page list: what is typed (a command, an option, a variable, an exit
    code) and what it means. */
struct ManEntry {
    QString term;
    QString text;
};

/** A titled section of definition lists (COMMANDS, OPTIONS, ENVIRONMENT, EXIT STATUS, ...). */
struct ManSection {
    QString title;
    QString intro;  // a paragraph before the list; may be empty
    QList<ManEntry> entries;
};

/** A section 1 manual page, written as roff (man(7)). Options and commands in `term`s and
    `synopsis` lines are written as typed: their hyphens become \- so that they can be copied. */
struct ManPage {
    QString name;             // the program, e.g. lanternd
    QString summary;          // the NAME line after "name -"
    QString version;          // footer, e.g. "Lantern 0.1.0"
    QStringList synopsis;     // one line each, starting after the program name
    QStringList description;  // paragraphs
    QList<ManSection> sections;

    /** The page as roff; the same page gives the same bytes (no date, no host). */
    QString toRoff() const;
};

} // namespace lantern::help
