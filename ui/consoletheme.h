#pragma once

#include <QCoreApplication>
#include <QString>

class QChart;

namespace lantern::ui {

/** Light or dark: the console follows the system palette by default and offers both (View ›
    Theme, `--theme`), for consoles watched at night. Text colours that carry a meaning (errors,
    warnings, success) come from here, so they stay readable on either; the pastel pills and
    banners carry their own background and read the same on both. */
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
    /** A chart drawn in the application's palette: background, labels, grid, legend. */
    static void style(QChart *chart);
};

} // namespace lantern::ui
