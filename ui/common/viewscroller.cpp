#include "common/viewscroller.h"

#include <QEvent>
#include <QLayout>
#include <QScrollBar>
#include <QStyle>

#include <algorithm>

namespace lantern::ui {

ViewScroller::ViewScroller(QWidget *view, QWidget *parent) : QScrollArea(parent)
{
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(false);
    setWidget(view);
    view->installEventFilter(this);
}

QSize ViewScroller::sizeHint() const
{
    return widget() ? widget()->sizeHint() : QScrollArea::sizeHint();
}

QSize ViewScroller::minimumSizeHint() const
{
    // Small: the window may be smaller than a view; the view then scrolls.
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    return {bar * 4, bar * 4};
}

void ViewScroller::resizeEvent(QResizeEvent *event)
{
    QScrollArea::resizeEvent(event);
    fit();
}

bool ViewScroller::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        fit();
    return QScrollArea::eventFilter(watched, event);
}

void ViewScroller::fit()
{
    QWidget *view = widget();
    if (!view)
        return;
    const QSize minimum = view->minimumSizeHint().expandedTo(view->minimumSize());
    // Word-wrapped labels need more height the narrower the view is, which minimumSizeHint()
    // does not say: a view given only that much squeezed its other rows over each other.
    const auto minimumHeightAt = [view, &minimum](int width) {
        int height = minimum.height();
        if (const QLayout *layout = view->layout(); layout && layout->hasHeightForWidth())
            height = std::max(height, layout->minimumHeightForWidth(std::max(width, minimum.width())));
        return height;
    };
    // The room without scroll bars first; a bar, once needed, takes room from the other side.
    QSize room = size() - QSize(frameWidth() * 2, frameWidth() * 2);
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    const bool tooNarrow = minimum.width() > room.width();
    const bool tooLow = minimumHeightAt(room.width()) > room.height() - (tooNarrow ? bar : 0);
    if (tooLow)
        room.rwidth() -= bar;
    if (tooNarrow)
        room.rheight() -= bar;
    QSize fitted = room.expandedTo(minimum);
    fitted.setHeight(std::max(fitted.height(), minimumHeightAt(fitted.width())));
    view->resize(fitted);
}

} // namespace lantern::ui
