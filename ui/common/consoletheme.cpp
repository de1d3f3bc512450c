#include "common/consoletheme.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QLabel>
#include <QLegend>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>

namespace lantern::ui {

namespace {

const QString ThemeSetting = QStringLiteral("console/theme");
QString g_systemStyle;  // the style the platform chose, for going back to System

QPalette darkPalette()
{
    QPalette palette;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1f, 0x20, 0x22);
    const QColor text(0xe8, 0xea, 0xed);
    const QColor disabled(0x80, 0x86, 0x8b);
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, QColor(0x28, 0x2a, 0x2d));
    palette.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x40, 0x43));
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, disabled);
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3a));
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, QColor(0xf2, 0x8b, 0x82));
    palette.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x51));
    palette.setColor(QPalette::Midlight, QColor(0x3c, 0x40, 0x43));
    palette.setColor(QPalette::Mid, QColor(0x5f, 0x63, 0x68));
    palette.setColor(QPalette::Dark, QColor(0x17, 0x18, 0x1a));
    palette.setColor(QPalette::Shadow, Qt::black);
    palette.setColor(QPalette::Highlight, QColor(0x3b, 0x6e, 0xc4));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::Link, QColor(0x8a, 0xb4, 0xf8));
    palette.setColor(QPalette::LinkVisited, QColor(0xc5, 0x8a, 0xf9));
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        palette.setColor(QPalette::Disabled, role, disabled);
    return palette;
}

} // namespace

void ConsoleTheme::apply(Theme theme)
{
    if (g_systemStyle.isEmpty())
        g_systemStyle = QApplication::style()->name();
    if (theme == Theme::System) {
        QApplication::setStyle(QStyleFactory::create(g_systemStyle));
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(theme == Theme::Dark ? darkPalette() : QApplication::style()->standardPalette());
}

ConsoleTheme::Theme ConsoleTheme::saved()
{
    return fromName(QSettings().value(ThemeSetting).toString());
}

void ConsoleTheme::save(Theme theme)
{
    QSettings().setValue(ThemeSetting, nameOf(theme));
}

ConsoleTheme::Theme ConsoleTheme::fromName(const QString &name, bool *ok)
{
    if (ok)
        *ok = true;
    if (name == QLatin1String("light"))
        return Theme::Light;
    if (name == QLatin1String("dark"))
        return Theme::Dark;
    if (ok)
        *ok = name == QLatin1String("system");
    return Theme::System;
}

QString ConsoleTheme::nameOf(Theme theme)
{
    switch (theme) {
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::System:
        break;
    }
    return QStringLiteral("system");
}

QString ConsoleTheme::nameFrom(const QStringList &arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if (argument == QLatin1String("--theme") && i + 1 < arguments.size())
            return arguments.at(i + 1);
        if (argument.startsWith(QLatin1String("--theme=")))
            return argument.mid(8);
    }
    return {};
}

bool ConsoleTheme::isDark()
{
    return QApplication::palette().color(QPalette::Window).lightness() < 128;
}

QString ConsoleTheme::errorText()
{
    return isDark() ? QStringLiteral("#f28b82") : QStringLiteral("#a50e0e");
}

QString ConsoleTheme::warningText()
{
    return isDark() ? QStringLiteral("#fdd663") : QStringLiteral("#7a4f01");
}

QString ConsoleTheme::goodText()
{
    return isDark() ? QStringLiteral("#81c995") : QStringLiteral("#137333");
}

ConsoleTheme::ToneColours ConsoleTheme::tone(Tone tone)
{
    const bool dark = isDark();
    switch (tone) {
    case Tone::Good:
        return dark ? ToneColours{QStringLiteral("#1e3a2a"), QStringLiteral("#2f6343"), QStringLiteral("#81c995")}
                    : ToneColours{QStringLiteral("#e6f4ea"), QStringLiteral("#a8dab5"), QStringLiteral("#137333")};
    case Tone::Warning:
        return dark ? ToneColours{QStringLiteral("#3d3214"), QStringLiteral("#6e5a1c"), QStringLiteral("#fdd663")}
                    : ToneColours{QStringLiteral("#fef7e0"), QStringLiteral("#f5d88a"), QStringLiteral("#7a4f01")};
    case Tone::Error:
        return dark ? ToneColours{QStringLiteral("#46201d"), QStringLiteral("#7c332c"), QStringLiteral("#f28b82")}
                    : ToneColours{QStringLiteral("#fce8e6"), QStringLiteral("#f6aea9"), QStringLiteral("#a50e0e")};
    case Tone::Information:
        break;
    }
    return dark ? ToneColours{QStringLiteral("#1c2f4d"), QStringLiteral("#30518a"), QStringLiteral("#8ab4f8")}
                : ToneColours{QStringLiteral("#e8f0fe"), QStringLiteral("#aecbfa"), QStringLiteral("#174ea6")};
}

QLabel *ConsoleTheme::hintLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    return label;
}

QString ConsoleTheme::pillStyle(Tone tone, const QString &extra)
{
    const ToneColours colours = ConsoleTheme::tone(tone);
    return QStringLiteral("QLabel { background: %1; color: %2; border-radius: 4px; %3 }").arg(colours.background, colours.foreground, extra);
}

void ConsoleTheme::style(QChart *chart)
{
    const QPalette palette = QApplication::palette();
    chart->setBackgroundBrush(palette.color(QPalette::Base));
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(palette.color(QPalette::Text));
    chart->legend()->setLabelColor(palette.color(QPalette::Text));
    const QColor grid = palette.color(QPalette::Mid);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(palette.color(QPalette::Text));
        axis->setTitleBrush(palette.color(QPalette::Text));
        axis->setLinePenColor(grid);
        axis->setGridLineColor(isDark() ? grid.darker(130) : QColor(0xe0, 0xe0, 0xe0));
    }
}

QIcon ConsoleTheme::standardIcon(const QWidget *widget, QStyle::StandardPixmap which)
{
    const QIcon original = widget->style()->standardIcon(which, nullptr, widget);
    const QPalette palette = widget->palette();
    QIcon tinted;
    for (const QSize &size : original.availableSizes().isEmpty() ? QList<QSize>{QSize(16, 16), QSize(24, 24)} : original.availableSizes()) {
        const QPixmap shape = original.pixmap(size);
        for (const auto &[mode, colour] : {std::pair{QIcon::Normal, palette.color(QPalette::Active, QPalette::ButtonText)},
                                           std::pair{QIcon::Disabled, palette.color(QPalette::Disabled, QPalette::ButtonText)}}) {
            QPixmap pixmap = shape;
            QPainter painter(&pixmap);
            painter.setCompositionMode(QPainter::CompositionMode_SourceIn);  // the shape's alpha, our colour
            painter.fillRect(pixmap.rect(), colour);
            painter.end();
            tinted.addPixmap(pixmap, mode);
        }
    }
    return tinted;
}

} // namespace lantern::ui
