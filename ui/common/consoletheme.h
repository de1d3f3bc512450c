#pragma once

#include <QIcon>
#include <QStyle>

#include <QCoreApplication>
#include <QString>

class QChart;
class QLabel;
class QWidget;

namespace lantern::ui {

/** Light or dark: the console follows the system palette by default and offers both (View ›
    Theme, `--theme`), for consoles watched at night. Text colours that carry a meaning (errors,
    warnings, success) come from here, so they stay readable on either; the pastel pills and
    pills and banners take their colours from tone(): pastel on light, deep tints with light text
    on dark, so a colour-coded cell never glares out of a dark window. */
class ConsoleTheme final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::ConsoleTheme)

public:
    enum class Theme { System, Light, Dark };

    /** Sets the application's palette (Fusion's, for Light and Dark, so every widget follows). */
    static void apply(Theme theme);
    /** The theme last chosen (View › Theme), else System. */
    static Theme saved();
    static void save(Theme theme);
    /** "system", "light", "dark" (as --theme takes it); nullopt-like System for anything else. */
    static Theme fromName(const QString &name, bool *ok = nullptr);
    static QString nameOf(Theme theme);
    /** --theme's value, read before the full parse. */
    static QString nameFrom(const QStringList &arguments);

    /** Whether the application's palette is dark (its window colour). */
    static bool isDark();
    /** Text colours for meanings, as "#rrggbb" for style sheets and rich text. */
    static QString errorText();
    static QString warningText();
    static QString goodText();
    /** What a pill, a banner or a coloured cell says. */
    enum class Tone { Good, Warning, Error, Information };
    struct ToneColours {
        QString background;
        QString border;
        QString foreground;
    };
    /** The colours of `tone` in the application's palette now, as "#rrggbb". */
    static ToneColours tone(Tone tone);
    /** A QLabel style sheet for a rounded pill of `tone`; `extra`: more declarations (padding, weight). */
    /** A word-wrapped hint under a form's fields, in the palette's placeholder colour. */
    static QLabel *hintLabel(const QString &text, QWidget *parent);
    static QString pillStyle(Tone tone, const QString &extra = QStringLiteral("padding: 1px 6px;"));
    /** A chart drawn in the application's palette: background, labels, grid, legend. */
    static void style(QChart *chart);
    /** One of the style's standard icons (play, pause, reload, ...) drawn in the palette's button
        text colour, and its disabled text colour when disabled: Fusion draws them black, which
        vanishes on the dark theme's buttons. */
    static QIcon standardIcon(const QWidget *widget, QStyle::StandardPixmap which);
};

} // namespace lantern::ui
