/*
 * thread.c - a worker thread with its mutex and condition variable (see
 * thread.h).
 */
#include <pthread.h>

#include "util/thread.h"

int util_thread_start(pthread_t *thread, pthread_mutex_t *mu, pthread_cond_t *cv,
		      void *(*fn)(void *), void *arg)
{
	if (pthread_mutex_init(mu, NULL))
		return -1;
	if (pthread_cond_init(cv, NULL)) {
		pthread_mutex_destroy(mu);
		return -1;
	}
	if (pthread_create(thread, NULL, fn, arg)) {
		pthread_cond_destroy(cv);
		pthread_mutex_destroy(mu);
		return -1;
	}
	return 0;
}
