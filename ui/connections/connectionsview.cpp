#include "connections/connectionsview.h"

#include "connections/connectioncheckreport.h"
#include "connections/connectionprofilelist.h"
#include "connections/connectionprofileform.h"
#include "common/consoletheme.h"
#include "connections/connectionquestions.h"
#include "console/connections/connectionprofilemodel.h"
#include "console/connections/profilesecrets.h"
#include "console/connections/profilestore.h"
#include "console/connections/sessionservers.h"
#include "core/errors.h"
#include "common/messagebanner.h"
#include "tunnel/sshtunnel.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace lantern::ui {


ConnectionsView::ConnectionsView(QWidget *parent, const QString &profileDirectory, const QString &keychainService)
    : ConsoleView(parent),
      m_directory(profileDirectory.isEmpty() ? ProfileStore::defaultDirectory() : profileDirectory),
      m_model(new ConnectionProfileModel(this)),
      m_secrets(new ProfileSecrets(keychainService, this)),
      m_banner(new MessageBanner(this)),
      m_activeLabel(new QLabel(this)),
      m_profiles(new ConnectionProfileList(m_model, this)),
      m_list(m_profiles->view()),
      m_newButton(m_profiles->newButton()),
      m_deleteButton(m_profiles->deleteButton()),
      m_form(new ConnectionProfileForm(this)),
      m_testButton(new QPushButton(tr("Test connection"), this)),
      m_saveButton(new QPushButton(tr("Save"), this)),
      m_useButton(new QPushButton(tr("Use this profile"), this)),
      m_sandboxButton(new QPushButton(tr("Back to the sandbox…"), this)),
      m_busy(new QProgressBar(this)),
      m_result(new QLabel(this))
{
    m_confirmSwitch = &ConnectionQuestions::askToSwitch;
    m_confirmHostKey = &ConnectionQuestions::askToTrustHostKey;
    setUpActiveLabel();
    connectProfileList();

    auto *content = new QHBoxLayout;
    content->setSpacing(16);
    content->addWidget(m_profiles);
    content->addLayout(buildFormColumn(), 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(10);
    layout->addWidget(m_banner);
    layout->addWidget(m_activeLabel);
    layout->addLayout(content, 1);

    connectSecrets();
    m_secrets->probe();
    reloadProfiles();
    if (m_model->rowCount() > 0)
        m_list->setCurrentIndex(m_model->index(0));
    else
        newProfile();
    updateKeychainNote();
    updateButtons();
}

/** What the session runs on now, above everything. */
void ConnectionsView::setUpActiveLabel()
{
    m_activeLabel->setObjectName(QStringLiteral("activeConnection"));
    m_activeLabel->setWordWrap(true);
    m_activeLabel->setTextFormat(Qt::RichText);
    m_activeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_activeLabel->setStyleSheet(QStringLiteral("QLabel#activeConnection { background: palette(alternate-base); border: 1px solid palette(mid);"
                                                " border-radius: 4px; padding: 6px 10px; }"));
    m_activeLabel->setText(tr("Not connected yet."));
}

/** The saved profiles: choosing one, a new one, deleting one (asked first). */
void ConnectionsView::connectProfileList()
{
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ConnectionsView::onSelectionChanged);
    connect(m_newButton, &QPushButton::clicked, this, &ConnectionsView::newProfile);
    connect(m_deleteButton, &QPushButton::clicked, this, [this] {
        const QString name = m_form->name();
        if (m_model->rowOf(name) < 0)
            return;
        auto *ask = new QMessageBox(QMessageBox::Question, tr("Delete profile"),
                                    tr("Delete the profile “%1” and its saved passwords?").arg(name), QMessageBox::Yes | QMessageBox::Cancel, this);
        ask->setAttribute(Qt::WA_DeleteOnClose);
        connect(ask, &QMessageBox::accepted, this, [this, name] { deleteProfile(name); });
        ask->open();
    });
}

/** Test, Save, Use, and Back to the sandbox (shown once the console left it). */
QHBoxLayout *ConnectionsView::buildActions()
{
    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->setFixedWidth(72);
    m_busy->setFixedHeight(m_form->fieldHeight() / 3);
    m_busy->setVisible(false);
    m_testButton->setToolTip(tr("Connect to both servers and measure one round trip each (Redis PING, SQL SELECT 1)"));
    m_saveButton->setToolTip(tr("Save the profile; passwords go to the system keychain, never into the file"));
    m_useButton->setToolTip(tr("Test this profile's servers, then, once you confirm, reconnect the whole console to them"));
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_testButton);
    actions->addWidget(m_busy);
    actions->addStretch();
    actions->addWidget(m_saveButton);
    actions->addWidget(m_useButton);
    m_sandboxButton->setObjectName(QStringLiteral("sandboxButton"));
    m_sandboxButton->setToolTip(tr("Leave these servers for a fresh sandbox: a private Redis and an SQLite file with demo data"));
    m_sandboxButton->setVisible(false);
    actions->addWidget(m_sandboxButton);
    connect(m_sandboxButton, &QPushButton::clicked, this, &ConnectionsView::returnToSandbox);
    connect(m_testButton, &QPushButton::clicked, this, &ConnectionsView::testConnection);
    connect(m_saveButton, &QPushButton::clicked, this, &ConnectionsView::saveProfile);
    connect(m_useButton, &QPushButton::clicked, this, &ConnectionsView::useProfile);
    return actions;
}

/** The form, its actions, and the last test's report under them. */
QVBoxLayout *ConnectionsView::buildFormColumn()
{
    m_result->setObjectName(QStringLiteral("testResult"));
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::RichText);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    auto *formColumn = new QVBoxLayout;
    formColumn->addWidget(m_form);
    formColumn->addLayout(buildActions());
    formColumn->addWidget(m_result);
    formColumn->addStretch();
    return formColumn;
}

/** The keychain's answers: fetched passwords, where a save went, whether it is there at all. */
void ConnectionsView::connectSecrets()
{
    connect(m_secrets, &ProfileSecrets::fetched, this, &ConnectionsView::onFetched);
    connect(m_secrets, &ProfileSecrets::keychainUnavailable, this, &ConnectionsView::updateKeychainNote);
    connect(m_secrets, &ProfileSecrets::stored, this, [this](const QString &profile, ProfileSecrets::Storage where) {
        m_lastSaveInMemory = where == ProfileSecrets::Storage::Memory;
        updateKeychainNote();
        Q_EMIT profileSaved(profile, where == ProfileSecrets::Storage::Keychain);
    });
}

ConnectionsView::~ConnectionsView() = default;

void ConnectionsView::attachBackend(const Config &config)
{
    m_thread = std::make_unique<DedicatedThread<ConnectionTester>>(QStringLiteral("connection-test"));
    m_tester = m_thread->get();
    connect(this, &ConnectionsView::checkRequested, m_tester, &ConnectionTester::check, Qt::QueuedConnection);
    connect(m_tester, &ConnectionTester::checked, this, &ConnectionsView::onChecked, Qt::QueuedConnection);
    m_base = config;
    m_attached = true;
    showActive(config);
    if (!config.profile.isEmpty() && selectProfile(config.profile))
        return;
    if (m_model->rowCount() == 0)
        newProfile();  // pre-filled from the connection in use
    updateButtons();
}

void ConnectionsView::showActive(const Config &config)
{
    m_active = config;
    m_model->setActiveName(config.profile);
    const QString name = config.profile.isEmpty() ? tr("no saved profile") : config.profile;
    QString text = tr("In use: <b>%1</b> — Redis %2 · SQL %3 · key prefix %4 · %5")
                           .arg(name.toHtmlEscaped(), config.redis.redacted().toHtmlEscaped(), config.db.redacted().toHtmlEscaped(),
                                config.keyPrefix.toHtmlEscaped(), QString::fromUtf8(config.timeZone.id()).toHtmlEscaped());
    if (config.ssh.enabled())
        text += QStringLiteral(" · ") + tr("through the SSH tunnel %1").arg(config.ssh.text()).toHtmlEscaped();
    if (!config.redis.tls.warning(config.redis.redacted()).isEmpty())
        text += QStringLiteral(" · <span style='color:%1; font-weight:bold'>%2</span>")
                        .arg(ConsoleTheme::warningText(), tr("TLS not verified").toHtmlEscaped());
    if (config.readOnly)
        text += QStringLiteral(" · <span style='color:%1; font-weight:bold'>%2</span>").arg(ConsoleTheme::errorText(), tr("read-only").toHtmlEscaped());
    m_activeLabel->setText(text);
}

QString ConnectionsView::activeProfileName() const
{
    return m_active.profile;
}

void ConnectionsView::reloadProfiles()
{
    const QString selected = m_form->name();
    m_model->setProfiles(ProfileStore(m_directory).list());
    if (const int row = m_model->rowOf(selected); row >= 0) {
        const QSignalBlocker blocker(m_list->selectionModel());
        m_list->setCurrentIndex(m_model->index(row));
    }
    updateButtons();
}

bool ConnectionsView::selectProfile(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return false;
    const QModelIndex index = m_model->index(row);
    if (m_list->currentIndex() == index)
        onSelectionChanged();
    else
        m_list->setCurrentIndex(index);
    return true;
}

void ConnectionsView::onSelectionChanged()
{
    const QModelIndex current = m_list->currentIndex();
    if (!current.isValid())
        return;
    const ConnectionProfile profile = m_model->profileAt(current.row());
    fillForm(profile);
    m_form->showPasswordsPending();
    m_fetching = profile.name;
    updateButtons();
    m_secrets->fetch(profile.name);
}

void ConnectionsView::onFetched(const QString &profile, const ProfileSecret &secret)
{
    if (profile != m_fetching)
        return;
    m_fetching.clear();
    m_form->showPasswords(secret);
    updateKeychainNote();
    updateButtons();
    Q_EMIT secretsLoaded(profile);
}

void ConnectionsView::fillForm(const ConnectionProfile &profile)
{
    m_acceptedFingerprint.clear();
    m_form->fill(profile);
    m_result->clear();
}

void ConnectionsView::newProfile()
{
    {
        const QSignalBlocker blocker(m_list->selectionModel());
        m_list->clearSelection();
        m_list->setCurrentIndex({});
    }
    m_fetching.clear();
    // Pre-filled from the servers in use, so that saving the session as a profile keeps working;
    // never from the sandbox's, which end with it.
    const bool fromSession = m_attached && !m_sandboxSession;
    fillForm(fromSession ? ConnectionProfile::fromConfig(QString(), m_active) : ConnectionProfile{});
    m_form->showPasswords(fromSession ? ProfileSecret{m_active.redis.password, m_active.db.password, m_active.redis.sentinelPassword, m_active.ssh.secret} : ProfileSecret{});
    m_form->focusName();
    updateButtons();
}

ConnectionProfile ConnectionsView::formProfile() const
{
    return m_form->profile();
}

ProfileSecret ConnectionsView::formSecret() const
{
    return m_form->secret();
}

std::optional<Config> ConnectionsView::formConfig()
{
    ConnectionProfile profile = formProfile();
    if (profile.name.isEmpty())
        profile.name = QStringLiteral("unsaved");  // a test needs no name
    try {
        Config config = profile.applyTo(m_base, formSecret());
        config.ssh.acceptedFingerprint = m_acceptedFingerprint;
        return config;
    } catch (const InvalidInputError &error) {
        m_banner->showMessage(MessageBanner::Kind::Error, error.message());
        return std::nullopt;
    }
}

bool ConnectionsView::saveProfile()
{
    const ConnectionProfile profile = formProfile();
    const ProfileSecret secret = formSecret();
    try {
        profile.validate();
        ProfileStore(m_directory).save(profile);
    } catch (const InvalidInputError &error) {
        m_banner->showMessage(MessageBanner::Kind::Error, error.message());
        return false;
    }
    // The form shows what was saved: URLs without passwords, the passwords in their fields.
    m_form->showSaved(profile, secret);
    m_secrets->store(profile.name, secret);
    reloadProfiles();
    if (const int row = m_model->rowOf(profile.name); row >= 0) {
        const QSignalBlocker blocker(m_list->selectionModel());
        m_list->setCurrentIndex(m_model->index(row));
    }
    m_banner->showMessage(MessageBanner::Kind::Positive, tr("Profile “%1” saved.").arg(profile.name));
    return true;
}

void ConnectionsView::deleteProfile(const QString &name)
{
    ProfileStore(m_directory).remove(name);
    m_secrets->forget(name);
    reloadProfiles();
    if (m_model->rowCount() > 0)
        m_list->setCurrentIndex(m_model->index(0));
    else
        newProfile();
    m_banner->showMessage(MessageBanner::Kind::Information, tr("Profile “%1” deleted.").arg(name));
}

void ConnectionsView::testConnection()
{
    if (!m_tester || !m_fetching.isEmpty())
        return;
    const std::optional<Config> config = formConfig();
    if (!config)
        return;
    m_banner->clear();
    startTest(*config);
}

void ConnectionsView::startTest(const Config &config)
{
    m_testWaiting = ++m_serial;
    m_result->setText(tr("Testing…"));
    updateButtons();
    Q_EMIT checkRequested(m_testWaiting, config);
}

bool ConnectionsView::useProfile()
{
    if (!m_attached || !m_fetching.isEmpty() || m_switchWaiting != 0)
        return false;
    const ConnectionProfile profile = formProfile();
    if (profile.name.isEmpty()) {
        m_banner->showMessage(MessageBanner::Kind::Error, tr("Give the profile a name first."));
        return false;
    }
    const std::optional<Config> config = formConfig();
    if (!config)
        return false;
    if (pointsAtSandbox(*config)) {
        m_banner->showMessage(MessageBanner::Kind::Error,
                              tr("“%1” points at this console's sandbox (Redis %2), which stops when the console leaves it: the session "
                                 "would land on a server that is gone. Choose a profile of other servers; the console stays on the sandbox.")
                                      .arg(profile.name, m_active.redis.redacted()));
        return false;
    }
    // The servers first: a profile that cannot serve must not replace a session that can.
    m_switchTarget = config;
    m_switchWaiting = ++m_serial;
    m_result->setText(tr("Testing…"));
    m_banner->showMessage(MessageBanner::Kind::Information, tr("Testing the servers of “%1” before switching…").arg(profile.name));
    updateButtons();
    Q_EMIT checkRequested(m_switchWaiting, *config);
    return true;
}

void ConnectionsView::setSandboxSession(bool sandbox)
{
    m_sandboxSession = sandbox;
    updateButtons();
}

bool ConnectionsView::pointsAtSandbox(const Config &config) const
{
    return m_sandboxSession && m_attached && sharesServers(config, m_active);
}

bool ConnectionsView::returnToSandbox()
{
    if (m_sandboxSession || !m_attached || m_switchWaiting != 0)
        return false;
    const QString text = tr("Every view reconnects to a fresh sandbox: a private Redis server and an SQLite file with demo data, "
                            "on this computer. The console leaves %1.")
                                 .arg(sessionName());
    if (!m_confirmSwitch(this, tr("Switch the console to the sandbox?"), text)) {
        m_banner->showMessage(MessageBanner::Kind::Information, tr("Still on %1: nothing was switched.").arg(sessionName()));
        return false;
    }
    Q_EMIT sandboxRequested();
    return true;
}

QString ConnectionsView::sessionName() const
{
    if (m_sandboxSession)
        return tr("the sandbox");
    if (m_active.profile.isEmpty())
        return tr("the servers given on the command line");
    return tr("“%1”").arg(m_active.profile);
}

void ConnectionsView::finishSwitch(const ConnectionCheck &result)
{
    // The servers as the test reached them: through its SSH tunnel, which the session keeps.
    const Config config = result.tunnel ? SshTunnel::through(*m_switchTarget, result.tunnel) : *m_switchTarget;
    m_switchTarget.reset();
    m_switchWaiting = 0;
    showResult(result);
    updateButtons();
    if (trustHostKey(result)) {
        useProfile();
        return;
    }
    const QString name = config.profile;
    if (!result.redisOk || !result.sqlOk) {
        const PlainFailure &failure = result.sshUsed && !result.sshOk ? result.sshFailure : result.redisOk ? result.sqlFailure : result.redisFailure;
        const QString text = tr("Not switched to “%1”: %2 The console stays on %3.").arg(name, failure.message, sessionName());
        m_banner->showMessage(MessageBanner::Kind::Error, text, failure.detail);
        Q_EMIT switchDeclined(text);
        return;
    }
    const QString text = ConnectionQuestions::switchText(result, config, sessionName(), m_sandboxSession);
    if (!m_confirmSwitch(this, tr("Switch the console to “%1”?").arg(name), text)) {
        const QString kept = tr("Still on %1: nothing was switched.").arg(sessionName());
        m_banner->showMessage(MessageBanner::Kind::Information, kept);
        Q_EMIT switchDeclined(kept);
        return;
    }
    showActive(config);
    m_banner->showMessage(MessageBanner::Kind::Information, tr("Switching the console to “%1”…").arg(name));
    Q_EMIT profileActivated(config);
}

void ConnectionsView::refresh()
{
    if (!m_tester || m_latencyWaiting != 0)
        return;
    m_latencyWaiting = ++m_serial;
    m_latencySentAt = QDateTime::currentDateTime();
    Q_EMIT checkRequested(m_latencyWaiting, m_active);
}

void ConnectionsView::onChecked(quint64 serial, const ConnectionCheck &result)
{
    if (serial == m_latencyWaiting) {
        m_latencyWaiting = 0;
        const QString redisStatus = result.redisOk ? QString() : result.redisStatus.isEmpty() ? tr("down") : result.redisStatus;
        Q_EMIT latencyMeasured(result.redisOk ? result.redisMs : -1, result.sqlOk ? result.sqlMs : -1, redisStatus, m_latencySentAt);
    }
    if (serial == m_switchWaiting)
        finishSwitch(result);
    if (serial == m_testWaiting) {
        m_testWaiting = 0;
        showResult(result);
        updateButtons();
        if (trustHostKey(result)) {
            testConnection();
            return;
        }
        Q_EMIT tested(result);
    }
}

bool ConnectionsView::trustHostKey(const ConnectionCheck &result)
{
    if (result.sshUnknownFingerprint.isEmpty() || result.sshUnknownFingerprint == m_acceptedFingerprint)
        return false;
    if (!m_confirmHostKey(this, result.sshUnknownHost, result.sshUnknownFingerprint))
        return false;
    m_acceptedFingerprint = result.sshUnknownFingerprint;
    return true;
}

void ConnectionsView::showResult(const ConnectionCheck &result)
{
    m_result->setText(ConnectionCheckReport::html(result));
}

void ConnectionsView::updateKeychainNote()
{
    m_form->showKeychainNote(m_secrets->isKeychainUnavailable() || m_lastSaveInMemory, m_secrets->keychainProblem());
}

void ConnectionsView::updateButtons()
{
    const bool fetching = !m_fetching.isEmpty();
    m_testButton->setEnabled(m_tester && !fetching && m_testWaiting == 0 && m_switchWaiting == 0);
    m_useButton->setEnabled(m_attached && !fetching && m_switchWaiting == 0);
    m_sandboxButton->setVisible(m_attached && !m_sandboxSession);
    m_sandboxButton->setEnabled(m_switchWaiting == 0);
    m_saveButton->setEnabled(!fetching);
    m_deleteButton->setEnabled(m_model->rowOf(m_form->name()) >= 0 && m_list->currentIndex().isValid());
    m_busy->setVisible(m_testWaiting != 0 || m_switchWaiting != 0);
}

void ConnectionsView::prepareScreenshot(const ScreenshotRequest &)
{
    if (!m_active.profile.isEmpty())
        selectProfile(m_active.profile);
    if (m_secrets->pendingJobs() == 0) {
        testForScreenshot();
        return;
    }
    auto *const once = new QObject(this);
    connect(m_secrets, &ProfileSecrets::idle, once, [this, once] {
        delete once;
        testForScreenshot();
    });
}

void ConnectionsView::testForScreenshot()
{
    if (!m_fetching.isEmpty()) {
        auto *const fetched = new QObject(this);
        connect(this, &ConnectionsView::secretsLoaded, fetched, [this, fetched] {
            delete fetched;
            testForScreenshot();
        });
        return;
    }
    auto *const once = new QObject(this);
    connect(this, &ConnectionsView::tested, once, [this, once] {
        delete once;
        Q_EMIT screenshotReady();
    });
    if (m_sandboxSession && !m_list->currentIndex().isValid()) {
        startTest(m_active);  // no saved profile chosen: the report of the servers in use, the sandbox's
        return;
    }
    testConnection();
    if (!isTesting()) {  // the form did not make a configuration: its message is on screen
        delete once;
        Q_EMIT screenshotFailed(m_banner->text());
    }
}

QLabel *ConnectionsView::keychainLabel() const { return m_form->keychainLabel(); }
QLineEdit *ConnectionsView::nameField() const { return m_form->nameField(); }
QLineEdit *ConnectionsView::redisUrlField() const { return m_form->redisUrlField(); }
QLineEdit *ConnectionsView::redisPasswordField() const { return m_form->redisPasswordField(); }
QLineEdit *ConnectionsView::dbUrlField() const { return m_form->dbUrlField(); }
QLineEdit *ConnectionsView::dbPasswordField() const { return m_form->dbPasswordField(); }
QCheckBox *ConnectionsView::readOnlyBox() const { return m_form->readOnlyBox(); }

} // namespace lantern::ui
