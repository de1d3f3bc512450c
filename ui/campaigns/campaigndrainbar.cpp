#include "campaigns/campaigndrainbar.h"

#include <QPainter>
#include <QPainterPath>

namespace lantern::ui {

CampaignDrainBar::CampaignDrainBar(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void CampaignDrainBar::setSegments(const QList<Segment> &segments)
{
    m_segments = segments;
    QStringList parts;
    for (const Segment &segment : segments)
        parts << segment.label;
    setAccessibleDescription(parts.join(tr(", ", "separator between the items of a list")));
    update();
}

QSize CampaignDrainBar::sizeHint() const
{
    return {400, fontMetrics().height() + 6};
}

QSize CampaignDrainBar::minimumSizeHint() const
{
    return {120, fontMetrics().height() + 6};
}

void CampaignDrainBar::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF area = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    QPainterPath outline;
    outline.addRoundedRect(area, 4, 4);
    painter.fillPath(outline, palette().color(QPalette::AlternateBase));
    qint64 total = 0;
    for (const Segment &segment : std::as_const(m_segments))
        total += std::max<qint64>(0, segment.value);
    if (total > 0) {
        painter.save();
        painter.setClipPath(outline);
        double x = area.left();
        for (const Segment &segment : std::as_const(m_segments)) {
            if (segment.value <= 0)
                continue;
            const double width = area.width() * (double(segment.value) / double(total));  // drawing only
            painter.fillRect(QRectF(x, area.top(), width, area.height()), segment.color);
            x += width;
        }
        painter.restore();
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawPath(outline);
}

} // namespace lantern::ui
