#include "commandline.h"

#include "core/errors.h"
#include "settings/config.h"

namespace lantern::cli {

namespace {
/** The global options that configure Lantern (passed to Config::resolve). */
QStringList settingOptions()
{
    return Config::settingNames() << QStringLiteral("profile") << QStringLiteral("config");
}

} // namespace

QStringList globalOptionNames()
{
    return settingOptions() << QStringLiteral("lang");
}

QString CommandLine::required(const QString &name) const
{
    if (!options.contains(name))
        throw InvalidInputError(tr("missing --%1").arg(name));
    return options.value(name);
}

qint64 CommandLine::integer(const QString &name, qint64 min, qint64 max, std::optional<qint64> fallback) const
{
    if (!options.contains(name) && fallback)
        return *fallback;
    const QString text = required(name);
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < min || value > max || text.trimmed() != text || text.startsWith(QLatin1Char('+')))
        throw InvalidInputError(tr("invalid --%1 '%2': expected a whole number from %3 to %4").arg(name, text).arg(min).arg(max));
    return value;
}

QHash<QString, QString> CommandLine::settings() const
{
    QHash<QString, QString> result;
    for (const QString &name : settingOptions()) {
        if (options.contains(name))
            result.insert(name, options.value(name));
    }
    return result;
}

CommandLine parse(const QStringList &arguments, const QSet<QString> &switchNames)
{
    CommandLine line;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if (!argument.startsWith(QLatin1String("--")) || argument.size() == 2) {
            if (argument.startsWith(QLatin1Char('-')) && argument.size() > 1 && !argument.at(1).isDigit())
                throw InvalidInputError(QCoreApplication::translate("lantern::cli::CommandLine", "unknown option '%1'").arg(argument));
            line.words << argument;
            continue;
        }
        QString name = argument.mid(2);
        QString value;
        bool inlineValue = false;
        if (const qsizetype eq = name.indexOf(QLatin1Char('=')); eq >= 0) {
            value = name.mid(eq + 1);
            name = name.left(eq);
            inlineValue = true;
        }
        if (switchNames.contains(name)) {
            if (inlineValue)
                throw InvalidInputError(QCoreApplication::translate("lantern::cli::CommandLine", "--%1 takes no value").arg(name));
            line.switches.insert(name);
            continue;
        }
        if (!inlineValue) {
            if (i + 1 >= arguments.size())
                throw InvalidInputError(QCoreApplication::translate("lantern::cli::CommandLine", "--%1 needs a value").arg(name));
            value = arguments.at(++i);
        }
        if (line.options.contains(name))
            throw InvalidInputError(QCoreApplication::translate("lantern::cli::CommandLine", "--%1 given twice").arg(name));
        line.options.insert(name, value);
    }
    return line;
}

void requireOnly(const CommandLine &line, const QStringList &allowed, const QStringList &allowedSwitches)
{
    const QStringList global = globalOptionNames();
    for (auto it = line.options.cbegin(); it != line.options.cend(); ++it) {
        if (!allowed.contains(it.key()) && !global.contains(it.key()))
            throw InvalidInputError(QCoreApplication::translate("lantern::cli::CommandLine", "unknown option --%1 for '%2'")
                                            .arg(it.key(), line.words.join(QLatin1Char(' '))));
    }
    for (const QString &name : line.switches) {
        if (!allowedSwitches.contains(name))
            throw InvalidInputError(QCoreApplication::translate("lantern::cli::CommandLine", "--%1 does not apply to '%2'")
                                            .arg(name, line.words.join(QLatin1Char(' '))));
    }
}

} // namespace lantern::cli
