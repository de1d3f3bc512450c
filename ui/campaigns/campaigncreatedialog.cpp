#include "campaigns/campaigncreatedialog.h"

#include "campaigns/campaigntimesform.h"

#include "console/campaigns/campaignlistmodel.h"
#include "console/common/campaignmoney.h"
#include "console/campaigns/campaignpreviewer.h"
#include "common/consoletheme.h"
#include "shell/operatoridentity.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QValueAxis>
#include <QVBoxLayout>

namespace lantern::ui {

namespace {

bool sameSpec(const SplitSpec &a, const SplitSpec &b)
{
    return a.totalCents == b.totalCents && a.count == b.count && a.minCents == b.minCents && a.algorithm == b.algorithm && a.seed == b.seed;
}

QString randomSeed()
{
    return QString::number(QRandomGenerator::global()->generate64() >> 1);
}

constexpr int PreviewDelayMs = 250;

} // namespace

CampaignCreateDialog::CampaignCreateDialog(CampaignPreviewer *previewer, const QString &operatorName, const QTimeZone &zone, qint64 serverNowMs,
                                           QWidget *parent)
    : QDialog(parent),
      m_previewModel(new SplitPreviewModel(this)),
      m_name(nullptr),
      m_total(nullptr),
      m_count(nullptr),
      m_minimum(nullptr),
      m_algorithm(new QComboBox(this)),
      m_algorithmHelp(new QLabel(this)),
      m_seed(nullptr),
      m_attempts(new QSpinBox(this)),
      m_times(new CampaignTimesForm(zone, serverNowMs, this)),
      m_operatorName(operatorName.trimmed()),
      m_previewState(new QLabel(this)),
      m_stats(new QLabel(this)),
      m_chartView(new QChartView(this)),
      m_chart(new QChart),
      m_outline(new QLineSeries(this)),
      m_area(new QAreaSeries(m_outline)),
      m_amountAxis(new QValueAxis),
      m_countAxis(new QValueAxis),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("New red-envelope campaign"));
    auto *intro = new QLabel(tr("The total is split into envelopes when the campaign is launched; the preview shows that exact split. "
                                "Creating writes a draft and an audit log entry only: nobody can grab until you launch it."),
                             this);
    intro->setWordWrap(true);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    m_name = addField(form, tr("&Name:"), QStringLiteral("name"), CampaignDraftCheck::Field::Name);
    m_name->setMaxLength(200);  // longer than allowed, so "too long" can be said rather than silently cut
    m_name->setPlaceholderText(tr("e.g. Spring Festival 2025"));
    m_total = addField(form, tr("&Total (¥):"), QStringLiteral("total"), CampaignDraftCheck::Field::Total);
    m_total->setPlaceholderText(tr("e.g. 8888.88"));
    m_count = addField(form, tr("&Envelopes:"), QStringLiteral("count"), CampaignDraftCheck::Field::Count);
    m_count->setPlaceholderText(tr("e.g. 1000"));
    m_minimum = addField(form, tr("&Minimum each (¥):"), QStringLiteral("minimum"), CampaignDraftCheck::Field::Minimum);
    m_minimum->setText(QStringLiteral("0.01"));

    m_algorithm->setObjectName(QStringLiteral("algorithm"));
    m_algorithm->addItem(CampaignListModel::algorithmText(SplitAlgorithm::DoubleMean), int(SplitAlgorithm::DoubleMean));
    m_algorithm->addItem(CampaignListModel::algorithmText(SplitAlgorithm::Smoothed), int(SplitAlgorithm::Smoothed));
    m_algorithm->addItem(CampaignListModel::algorithmText(SplitAlgorithm::UniformCuts), int(SplitAlgorithm::UniformCuts));
    m_algorithmHelp->setWordWrap(true);
    m_algorithmHelp->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    auto *algorithmBox = new QVBoxLayout;
    algorithmBox->setSpacing(2);
    algorithmBox->addWidget(m_algorithm);
    algorithmBox->addWidget(m_algorithmHelp);
    form->addRow(tr("&Split:"), algorithmBox);
    qobject_cast<QLabel *>(form->labelForField(algorithmBox))->setBuddy(m_algorithm);

    m_seed = new QLineEdit(randomSeed(), this);
    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setToolTip(tr("The same seed always gives the same split, so an audit can replay it."));
    auto *randomButton = new QPushButton(tr("Random"), this);
    randomButton->setObjectName(QStringLiteral("randomSeed"));
    auto *seedRow = new QHBoxLayout;
    seedRow->addWidget(m_seed, 1);
    seedRow->addWidget(randomButton);
    auto *seedError = new QLabel(this);
    auto *seedBox = new QVBoxLayout;
    seedBox->setSpacing(2);
    seedBox->addLayout(seedRow);
    seedBox->addWidget(seedError);
    form->addRow(tr("S&eed:"), seedBox);
    qobject_cast<QLabel *>(form->labelForField(seedBox))->setBuddy(m_seed);
    m_errorLabels.insert(CampaignDraftCheck::Field::Seed, seedError);
    connect(randomButton, &QPushButton::clicked, this, [this] { m_seed->setText(randomSeed()); });
    connect(m_seed, &QLineEdit::textChanged, this, &CampaignCreateDialog::revalidate);

    m_attempts->setObjectName(QStringLiteral("maxAttempts"));
    m_attempts->setRange(1, 1000);
    m_attempts->setValue(9);
    m_attempts->setToolTip(tr("How often one user may try to grab; further tries are refused."));
    form->addRow(tr("&Attempts per user:"), m_attempts);
    // Optional: without times the draft waits for a Launch by hand.
    form->addRow(tr("Timetable:"), m_times);
    connect(m_times, &CampaignTimesForm::edited, this, &CampaignCreateDialog::revalidate);

    // The session's operator: changed in the window (status bar, File menu), never here.
    OperatorIdentity::addRowTo(form, m_operatorName, this);

    for (QLabel *label : std::as_const(m_errorLabels)) {
        label->setWordWrap(true);
        label->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText()));
        label->setVisible(false);
    }

    // The preview: the split's histogram and figures.
    m_previewState->setObjectName(QStringLiteral("previewState"));
    m_previewState->setWordWrap(true);
    m_stats->setObjectName(QStringLiteral("previewStats"));
    m_stats->setTextFormat(Qt::RichText);
    m_stats->setWordWrap(true);
    m_area->setColor(QColor(0xd9, 0x30, 0x25, 0xc0));
    m_area->setBorderColor(QColor(0xa5, 0x0e, 0x0e));
    m_chart->addSeries(m_area);
    m_chart->addAxis(m_amountAxis, Qt::AlignBottom);
    m_chart->addAxis(m_countAxis, Qt::AlignLeft);
    m_area->attachAxis(m_amountAxis);
    m_area->attachAxis(m_countAxis);
    m_countAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_countAxis->setTitleText(tr("Envelopes"));
    m_amountAxis->setLabelFormat(QStringLiteral("%.2f"));
    m_amountAxis->setTitleText(tr("Amount per envelope (¥)"));
    m_chart->legend()->setVisible(false);
    m_chart->setTitle(tr("How the total is split"));
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    ConsoleTheme::style(m_chart);
    m_chartView->setChart(m_chart);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    auto *previewColumn = new QVBoxLayout;
    previewColumn->addWidget(m_chartView, 1);
    previewColumn->addWidget(m_stats);
    previewColumn->addWidget(m_previewState);

    auto *columns = new QHBoxLayout;
    columns->setSpacing(18);
    columns->addLayout(form, 5);
    columns->addLayout(previewColumn, 6);

    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Create draft"));
    m_buttons->button(QDialogButtonBox::Ok)->setObjectName(QStringLiteral("createButton"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (canCreate())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addSpacing(4);
    layout->addLayout(columns, 1);
    layout->addWidget(m_buttons);
    const int character = fontMetrics().averageCharWidth();
    for (QWidget *field : std::initializer_list<QWidget *>{m_name, m_total, m_count, m_minimum, m_algorithm, m_seed})
        field->setMinimumWidth(character * 30);
    m_algorithmHelp->setMinimumWidth(character * 30);
    m_chartView->setMinimumSize(character * 60, fontMetrics().height() * 18);
    resize(character * 140, fontMetrics().height() * 42);

    for (QLineEdit *field : {m_name, m_total, m_count, m_minimum})
        connect(field, &QLineEdit::textChanged, this, &CampaignCreateDialog::revalidate);
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, &CampaignCreateDialog::revalidate);
    connect(m_attempts, &QSpinBox::valueChanged, this, &CampaignCreateDialog::revalidate);

    m_previewDelay.setSingleShot(true);
    m_previewDelay.setInterval(PreviewDelayMs);
    connect(&m_previewDelay, &QTimer::timeout, this, &CampaignCreateDialog::sendPreview);
    if (previewer) {
        connect(this, &CampaignCreateDialog::previewRequested, previewer, &CampaignPreviewer::preview, Qt::QueuedConnection);
        connect(previewer, &CampaignPreviewer::previewReady, this, &CampaignCreateDialog::onPreviewReady, Qt::QueuedConnection);
        connect(previewer, &CampaignPreviewer::previewFailed, this, &CampaignCreateDialog::onPreviewFailed, Qt::QueuedConnection);
    }
    m_name->setFocus();
    revalidate();
}

CampaignCreateDialog::~CampaignCreateDialog() = default;

QLineEdit *CampaignCreateDialog::addField(QFormLayout *form, const QString &label, const QString &objectName, CampaignDraftCheck::Field field)
{
    auto *edit = new QLineEdit(this);
    edit->setObjectName(objectName);
    auto *error = new QLabel(this);
    error->setObjectName(objectName + QStringLiteral("Error"));
    auto *box = new QVBoxLayout;
    box->setSpacing(2);
    box->addWidget(edit);
    box->addWidget(error);
    form->addRow(label, box);
    qobject_cast<QLabel *>(form->labelForField(box))->setBuddy(edit);
    m_errorLabels.insert(field, error);
    return edit;
}

CampaignDraftInput CampaignCreateDialog::input() const
{
    CampaignDraftInput in;
    in.name = m_name->text();
    in.total = m_total->text();
    in.count = m_count->text();
    in.minimum = m_minimum->text();
    in.algorithm = SplitAlgorithm(m_algorithm->currentData().toInt());
    in.seed = m_seed->text();
    in.maxAttempts = m_attempts->value();
    return in;
}

void CampaignCreateDialog::setAlgorithm(SplitAlgorithm algorithm)
{
    m_algorithm->setCurrentIndex(m_algorithm->findData(int(algorithm)));
}

std::optional<CampaignDraft> CampaignCreateDialog::draft() const
{
    return m_check ? m_check->draft() : std::nullopt;
}

QString CampaignCreateDialog::operatorName() const
{
    return m_operatorName;
}

QString CampaignCreateDialog::fieldError(CampaignDraftCheck::Field field) const
{
    return m_check ? m_check->error(field) : QString();
}

ScheduleRequest CampaignCreateDialog::schedule() const
{
    return m_times->request();
}

bool CampaignCreateDialog::canCreate() const
{
    return draft().has_value() && !operatorName().isEmpty() && m_times->isAcceptable();
}

void CampaignCreateDialog::revalidate()
{
    m_check.emplace(input());
    // A field shows its message once something was typed into it (an empty form is not "wrong").
    const QMap<CampaignDraftCheck::Field, QLineEdit *> editors{{CampaignDraftCheck::Field::Name, m_name},
                                                             {CampaignDraftCheck::Field::Total, m_total},
                                                             {CampaignDraftCheck::Field::Count, m_count},
                                                             {CampaignDraftCheck::Field::Minimum, m_minimum},
                                                             {CampaignDraftCheck::Field::Seed, m_seed}};
    for (auto it = m_errorLabels.cbegin(); it != m_errorLabels.cend(); ++it) {
        QLineEdit *edit = editors.value(it.key());
        const bool touched = edit && (edit->isModified() || !edit->text().isEmpty());
        const QString message = m_check->error(it.key());
        it.value()->setText(message);
        it.value()->setVisible(touched && !message.isEmpty());
        if (edit)
            edit->setStyleSheet(touched && !message.isEmpty() ? QStringLiteral("QLineEdit { border: 1px solid #d93025; }") : QString());
    }
    switch (SplitAlgorithm(m_algorithm->currentData().toInt())) {
    case SplitAlgorithm::DoubleMean:
        m_algorithmHelp->setText(tr("WeChat's rule: each envelope is drawn between the minimum and twice the average left. "
                                    "Early grabs vary little, the last ones a lot."));
        break;
    case SplitAlgorithm::Smoothed:
        m_algorithmHelp->setText(tr("Everybody first gets an even share; only the rest is split by double mean. Amounts stay close together."));
        break;
    case SplitAlgorithm::UniformCuts:
        m_algorithmHelp->setText(tr("Random cuts along the total: every envelope has the same chance of any amount, whatever the grab order."));
        break;
    }
    const bool operatorOk = !operatorName().isEmpty();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(canCreate());
    m_buttons->button(QDialogButtonBox::Ok)->setToolTip(
            canCreate() ? QString() : (operatorOk ? tr("Fix the fields marked in red first.") : tr("Enter your name as the operator first.")));
    if (canCreate())
        m_buttons->button(QDialogButtonBox::Ok)->setText(schedule().launchAtMs ? tr("Create scheduled draft") : tr("Create draft"));

    const std::optional<SplitSpec> spec = m_check->splitSpec();
    const bool changed = spec.has_value() != m_wanted.has_value() || (spec && !sameSpec(*spec, *m_wanted));
    if (!changed)
        return;
    m_wanted = spec;
    if (!spec) {
        m_previewDelay.stop();
        m_previewModel->clear();
        showPreview();
        return;
    }
    schedulePreview();
}

void CampaignCreateDialog::schedulePreview()
{
    m_previewState->setText(tr("Computing the split…"));
    m_previewDelay.start();
}

void CampaignCreateDialog::sendPreview()
{
    if (!m_wanted || m_previewOut != 0)
        return;  // an answer is on its way: the newest spec goes out when it arrives
    m_previewOut = ++m_serial;
    Q_EMIT previewRequested(m_previewOut, *m_wanted);
}

void CampaignCreateDialog::onPreviewReady(quint64 serial, const SplitPreview &preview)
{
    if (serial != m_previewOut)
        return;
    m_previewOut = 0;
    if (!m_wanted || !sameSpec(preview.spec, *m_wanted)) {
        sendPreview();  // the form changed meanwhile
        return;
    }
    m_previewModel->setPreview(preview);
    showPreview();
    Q_EMIT previewShown();
}

void CampaignCreateDialog::onPreviewFailed(quint64 serial, const QString &message)
{
    if (serial != m_previewOut)
        return;
    m_previewOut = 0;
    if (m_wanted && !m_previewDelay.isActive()) {
        // The form may have changed; a failure of an older spec says nothing about the newest.
        m_previewModel->clear();
        showPreview();
        m_previewState->setText(tr("No preview: %1").arg(message));
    }
}

void CampaignCreateDialog::showPreview()
{
    m_outline->clear();
    m_amountAxis->setVisible(m_previewModel->hasPreview());
    m_countAxis->setVisible(m_previewModel->hasPreview());
    if (!m_previewModel->hasPreview()) {
        m_stats->clear();
        if (m_wanted)
            m_previewState->setText(tr("Computing the split…"));
        else if (m_total->text().trimmed().isEmpty() || m_count->text().trimmed().isEmpty())
            m_previewState->setText(tr("Enter a total, a number of envelopes and a seed to see the split."));
        else
            m_previewState->setText(tr("Fix the fields marked in red to see the split."));
        return;
    }
    // Steps over yuan on the x axis; doubles only to place the drawing, never for money.
    const SplitPreview &preview = m_previewModel->preview();
    QList<QPointF> steps;
    for (const SplitBucket &bucket : preview.buckets) {
        const double from = double(bucket.fromCents) / 100.0;
        const double to = double(bucket.toCents + 1) / 100.0;
        const double height = double(bucket.envelopes);
        steps << QPointF(from, 0) << QPointF(from, height) << QPointF(to, height) << QPointF(to, 0);
    }
    m_outline->replace(steps);
    m_amountAxis->setRange(double(preview.minCents) / 100.0, double(preview.maxCents + 1) / 100.0);
    m_amountAxis->setTickCount(6);
    // Whole envelopes: a short histogram gets one tick per envelope (not 0, 0, 1, 1, 1).
    const qint64 tallest = std::max<qint64>(1, m_previewModel->tallest());
    m_countAxis->setRange(0, double(tallest));
    if (tallest <= 5)
        m_countAxis->setTickCount(int(tallest) + 1);
    else
        m_countAxis->applyNiceNumbers();

    const QLocale locale;
    QStringList first;
    for (const qint64 cents : preview.firstAmounts)
        first << formatYuan(cents, false);
    m_stats->setText(QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\"><tr><td>%1</td><td align=\"right\"><b>%2</b></td>"
                                    "<td>&nbsp;&nbsp;&nbsp;%3</td><td align=\"right\"><b>%4</b></td></tr>"
                                    "<tr><td>%5</td><td align=\"right\"><b>%6</b></td><td>&nbsp;&nbsp;&nbsp;%7</td><td align=\"right\"><b>%8</b></td></tr>"
                                    "</table><p>%9<br>%10</p>")
                             .arg(tr("Smallest:"), formatYuan(preview.minCents), tr("Largest:"), formatYuan(preview.maxCents), tr("Mean:"),
                                  formatYuan(preview.meanCents), tr("Median:"), formatYuan(preview.medianCents),
                                  tr("%Ln envelope(s) hold exactly the minimum.", nullptr, int(preview.atMinimum)).toHtmlEscaped())
                             .arg(tr("The first grabs get %1 …").arg(first.join(tr(", ", "separator between the items of a list"))).toHtmlEscaped()));
    m_previewState->setText(tr("Preview of all %1 envelopes, as launch will write them (seed %2).")
                                    .arg(locale.toString(preview.spec.count), QString::number(preview.spec.seed)));
}

} // namespace lantern::ui
