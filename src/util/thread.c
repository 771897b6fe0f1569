/*
 * thread.c - a worker thread with its mutex and condition variable, started
 * and stopped (see thread.h).
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

void util_thread_stop(pthread_t thread, pthread_mutex_t *mu, pthread_cond_t *cv, int *quit)
{
	pthread_mutex_lock(mu);
	*quit = 1;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
	pthread_join(thread, NULL);
	pthread_cond_destroy(cv);
	pthread_mutex_destroy(mu);
}
