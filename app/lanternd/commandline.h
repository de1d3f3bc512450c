#pragma once

#include <QCoreApplication>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <optional>

namespace lantern::cli {

/** A parsed lanternd command line: the command words, then `--name value` options and
    `--switch` flags, in any order (global options may come before or after the command). */
struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(lantern::cli::CommandLine)

public:
    QStringList words;
    QHash<QString, QString> options;
    QSet<QString> switches;

    /** The option's value or the fallback. */
    QString value(const QString &name, const QString &fallback = {}) const { return options.value(name, fallback); }
    bool has(const QString &name) const { return options.contains(name); }
    /** Throws InvalidInputError naming the missing option. */
    QString required(const QString &name) const;
    /** A whole-number option in [min, max]: `fallback` when absent (required when no fallback);
        throws InvalidInputError for anything else. */
    qint64 integer(const QString &name, qint64 min, qint64 max, std::optional<qint64> fallback = std::nullopt) const;

    /** The subset of options that are configuration settings (Config::settingNames, profile and
        config); never --lang, which main() handles before anything else. */
    QHash<QString, QString> settings() const;
};

/** Splits arguments (without the program name). `switchNames` take no value; every other
    `--name` takes the next argument (or `--name=value`). Throws InvalidInputError. */
CommandLine parse(const QStringList &arguments, const QSet<QString> &switchNames);

/** The options every command accepts: the settings (Config::settingNames, --profile, --config)
    and --lang (the language of messages). */
QStringList globalOptionNames();

/** Throws InvalidInputError for an option outside `allowed` or the global options (the settings
    and --lang). */
void requireOnly(const CommandLine &line, const QStringList &allowed, const QStringList &allowedSwitches = {});

} // namespace lantern::cli
