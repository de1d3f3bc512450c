#include "commandline.h"

#include "core/config.h"
#include "core/errors.h"

namespace lantern::cli {

namespace {
QStringList globalOptions()
{
    return Config::settingNames() << QStringLiteral("profile") << QStringLiteral("config");
}
} // namespace

QString CommandLine::required(const QString &name) const
{
    if (!options.contains(name))
        throw InvalidInputError(QStringLiteral("missing --%1").arg(name));
    return options.value(name);
}

QHash<QString, QString> CommandLine::settings() const
{
    QHash<QString, QString> result;
    for (const QString &name : globalOptions()) {
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
                throw InvalidInputError(QStringLiteral("unknown option '%1'").arg(argument));
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
                throw InvalidInputError(QStringLiteral("--%1 takes no value").arg(name));
            line.switches.insert(name);
            continue;
        }
        if (!inlineValue) {
            if (i + 1 >= arguments.size())
                throw InvalidInputError(QStringLiteral("--%1 needs a value").arg(name));
            value = arguments.at(++i);
        }
        if (line.options.contains(name))
            throw InvalidInputError(QStringLiteral("--%1 given twice").arg(name));
        line.options.insert(name, value);
    }
    return line;
}

void requireOnly(const CommandLine &line, const QStringList &allowed, const QStringList &allowedSwitches)
{
    const QStringList global = globalOptions();
    for (auto it = line.options.cbegin(); it != line.options.cend(); ++it) {
        if (!allowed.contains(it.key()) && !global.contains(it.key()))
            throw InvalidInputError(QStringLiteral("unknown option --%1 for '%2'").arg(it.key(), line.words.join(QLatin1Char(' '))));
    }
    for (const QString &name : line.switches) {
        if (!allowedSwitches.contains(name))
            throw InvalidInputError(QStringLiteral("--%1 does not apply to '%2'").arg(name, line.words.join(QLatin1Char(' '))));
    }
}

} // namespace lantern::cli
