/*
 * thread.h - starting a worker thread with its mutex and condition
 * variable, all or nothing, and stopping it.
 *
 * Ownership: the thread, mutex and condition variable are the caller's;
 * after util_thread_start() succeeded the caller joins the thread and
 * destroys the other two (util_thread_stop() does all three).
 */
#ifndef SCOPEDB_UTIL_THREAD_H
#define SCOPEDB_UTIL_THREAD_H

#include <pthread.h>

/* Initialise *mu and *cv and run fn(arg) on *thread: 0, or -1 with nothing
 * left initialised (the caller then does the work itself). */
int util_thread_start(pthread_t *thread, pthread_mutex_t *mu, pthread_cond_t *cv,
		      void *(*fn)(void *), void *arg);

/* The other end: set *quit under *mu, wake the thread, join it, and
 * destroy *mu and *cv (the thread ends when it sees *quit). */
void util_thread_stop(pthread_t thread, pthread_mutex_t *mu, pthread_cond_t *cv, int *quit);

#endif
