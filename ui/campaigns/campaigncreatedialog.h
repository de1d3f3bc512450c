#pragma once

#include "console/campaigns/campaigndraftcheck.h"
#include "envelope/campaignschedule.h"

#include <QDialog>
#include <QTimer>

#include <optional>

class QAreaSeries;
class QLineSeries;
class QChart;
class QChartView;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QValueAxis;

namespace lantern {
class CampaignPreviewer;
class SplitPreviewModel;
struct SplitPreview;
}

namespace lantern::ui {

class CampaignTimesForm;

/** "New campaign": validates as the operator types (a plain message under each field) and
    previews the exact split (histogram, min/max/mean/median) for the chosen algorithm and seed
    before anything is written. Previews run on the CampaignPreviewer's thread, one at a time:
    while one is out, later edits wait and only the newest is sent when it answers. */
class CampaignCreateDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignCreateDialog)

public:
    /** Times are entered in `zone` and checked against the servers' clock (`serverNowMs`, as
        last read; 0: this machine's). */
    CampaignCreateDialog(CampaignPreviewer *previewer, const QString &operatorName, const QTimeZone &zone, qint64 serverNowMs,
                         QWidget *parent = nullptr);
    ~CampaignCreateDialog() override;

    /** Set when the form is valid (and then the Create button is enabled). */
    std::optional<CampaignDraft> draft() const;
    QString operatorName() const;
    /** The times asked with the draft (empty: none). */
    ScheduleRequest schedule() const;
    CampaignTimesForm *timesForm() const { return m_times; }
    QString fieldError(CampaignDraftCheck::Field field) const;
    bool canCreate() const;
    SplitPreviewModel *previewModel() const { return m_previewModel; }
    bool isPreviewing() const { return m_previewOut != 0; }
    /** Chooses the algorithm by its name ("double-mean", ...). */
    void setAlgorithm(SplitAlgorithm algorithm);

Q_SIGNALS:
    void previewRequested(quint64 serial, const lantern::SplitSpec &spec);
    /** The preview on screen matches the form. */
    void previewShown();

private:
    QLineEdit *addField(QFormLayout *form, const QString &label, const QString &objectName, CampaignDraftCheck::Field field);
    void revalidate();
    void schedulePreview();
    void sendPreview();
    void onPreviewReady(quint64 serial, const SplitPreview &preview);
    void onPreviewFailed(quint64 serial, const QString &message);
    void showPreview();
    CampaignDraftInput input() const;

    SplitPreviewModel *m_previewModel;
    QTimer m_previewDelay;
    quint64 m_serial = 0;
    quint64 m_previewOut = 0;   // the serial of the preview being computed, 0 for none
    std::optional<SplitSpec> m_wanted;  // the spec the form shows
    std::optional<CampaignDraftCheck> m_check;

    QLineEdit *m_name;
    QLineEdit *m_total;
    QLineEdit *m_count;
    QLineEdit *m_minimum;
    QComboBox *m_algorithm;
    QLabel *m_algorithmHelp;
    QLineEdit *m_seed;
    QSpinBox *m_attempts;
    CampaignTimesForm *m_times;
    QString m_operatorName;
    QMap<CampaignDraftCheck::Field, QLabel *> m_errorLabels;
    QLabel *m_previewState;
    QLabel *m_stats;
    QChartView *m_chartView;
    QChart *m_chart;
    QLineSeries *m_outline;  // the histogram's steps
    QAreaSeries *m_area;
    QValueAxis *m_amountAxis;
    QValueAxis *m_countAxis;
    QDialogButtonBox *m_buttons;
};

} // namespace lantern::ui
