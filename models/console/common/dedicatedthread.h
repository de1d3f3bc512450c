#pragma once

#include <QObject>
#include <QThread>

#include <utility>

namespace lantern {

/** Runs one QObject of type T on a QThread of its own for as long as this holder lives.
    T is constructed here (on the calling thread: its constructor must not open connections),
    moved to the thread, and destroyed *in* that thread when the holder goes away, so anything it
    opened there (a QSqlDatabase, a hiredis context) is closed by the thread that opened it.
    Talk to it with queued signals or QMetaObject::invokeMethod, never by direct calls. */
template<typename T>
class DedicatedThread final {
public:
    template<typename... Args>
    explicit DedicatedThread(const QString &name, Args &&...args)
        : m_object(new T(std::forward<Args>(args)...))
    {
        m_thread.setObjectName(name);
        m_object->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_object, &QObject::deleteLater);
        m_thread.start();
    }

    /** Lets the current slot finish, then stops the thread and waits for it. */
    ~DedicatedThread()
    {
        m_thread.quit();
        m_thread.wait();
    }

    Q_DISABLE_COPY_MOVE(DedicatedThread)

    T *get() const { return m_object; }
    T *operator->() const { return m_object; }
    QThread *thread() { return &m_thread; }

private:
    QThread m_thread;
    T *m_object;  // deleted in m_thread, on QThread::finished
};

} // namespace lantern
