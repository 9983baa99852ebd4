/* test.h: the unit tests' checks. Each CHECK prints "ok NAME" or
 * "FAIL NAME: file:line: expression" (tests/run counts the lines). */
#ifndef TEST_H
#define TEST_H
#include "cko.h"
#include <string.h>

static int test_failures;

#define CHECK(name, cond)                                                                                          \
	do {                                                                                                       \
		if (cond)                                                                                          \
			printf("ok %s\n", name);                                                                   \
		else {                                                                                             \
			printf("FAIL %s: %s:%d: %s\n", name, __FILE__, __LINE__, #cond);                           \
			test_failures++;                                                                           \
		}                                                                                                  \
	} while (0)

#define TEST_END() return test_failures ? 1 : 0
#endif
