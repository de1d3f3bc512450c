#include "manpage.h"

#include <QRegularExpression>

namespace lantern::help {

namespace {

/** Text for a roff text line: backslashes escaped, a leading control character neutralised,
    and the hyphens of option names (--name, -h) written as \- (man-pages(7): minus signs). */
QString escaped(const QString &text)
{
    QString result = text;
    result.replace(QLatin1Char('\\'), QLatin1String("\\e"));
    static const QRegularExpression option(QStringLiteral("(?<![A-Za-z0-9])--?[A-Za-z][A-Za-z0-9-]*"));
    QString withOptions;
    qsizetype last = 0;
    for (auto it = option.globalMatch(result); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        withOptions += result.mid(last, match.capturedStart() - last);
        withOptions += match.captured().replace(QLatin1Char('-'), QLatin1String("\\-"));
        last = match.capturedEnd();
    }
    withOptions += result.mid(last);
    QStringList lines = withOptions.split(QLatin1Char('\n'));
    for (QString &line : lines) {
        if (line.startsWith(QLatin1Char('.')) || line.startsWith(QLatin1Char('\'')))
            line.prepend(QLatin1String("\\&"));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString ManPage::toRoff() const
{
    QString roff;
    roff += QStringLiteral(".\\\" Written by %1 --help-man from the tables of its --help; do not edit.\n").arg(name);
    roff += QStringLiteral(".TH %1 1 \"\" \"%2\" \"User Commands\"\n").arg(name.toUpper(), version);
    roff += QStringLiteral(".SH NAME\n%1 \\- %2\n").arg(name, escaped(summary));
    roff += QStringLiteral(".SH SYNOPSIS\n");
    for (const QString &line : synopsis)
        roff += QStringLiteral(".br\n\\fB%1\\fR %2\n").arg(name, escaped(line));
    roff += QStringLiteral(".SH DESCRIPTION\n");
    for (qsizetype i = 0; i < description.size(); ++i)
        roff += (i > 0 ? QStringLiteral(".PP\n") : QString()) + escaped(description.at(i)) + QLatin1Char('\n');
    for (const ManSection &section : sections) {
        roff += QStringLiteral(".SH %1\n").arg(section.title.toUpper());
        if (!section.intro.isEmpty())
            roff += escaped(section.intro) + QLatin1Char('\n');
        for (const ManEntry &entry : section.entries)
            roff += QStringLiteral(".TP\n\\fB%1\\fR\n%2\n").arg(escaped(entry.term), escaped(entry.text));
    }
    return roff;
}

} // namespace lantern::help
