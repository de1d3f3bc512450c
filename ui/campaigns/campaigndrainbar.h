#pragma once

#include <QList>
#include <QWidget>

namespace lantern::ui {

/** A campaign's total as one horizontal bar cut into segments (paid, grabbed but not yet paid,
    remaining, refunded), each as wide as its share. Values are int64 cents; painting is the only
    place they become fractions of a width. */
class CampaignDrainBar final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignDrainBar)

public:
    struct Segment {
        QString label;
        qint64 value = 0;
        QColor color;
    };

    explicit CampaignDrainBar(QWidget *parent = nullptr);

    void setSegments(const QList<Segment> &segments);
    const QList<Segment> &segments() const { return m_segments; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QList<Segment> m_segments;
};

} // namespace lantern::ui
