#pragma once

#include <QScrollArea>

namespace lantern::ui {

/** Holds a view (or a panel of one): it fills the room it has and scrolls only when the room is
    smaller than its minimum size (a 1366×768 laptop, 2× scaling), so content that needs a line
    more never resizes the window. QScrollArea's own widgetResizable sizes a widget with
    word-wrapped labels by its preferred height instead, and scrolls where nothing needs to. */
class ViewScroller final : public QScrollArea {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ViewScroller)

public:
    ViewScroller(QWidget *view, QWidget *parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void fit();
};

} // namespace lantern::ui
