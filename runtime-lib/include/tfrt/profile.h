/*===- tfrt/profile.h - per-kernel timing of profiling builds ------*- C -*-===*
 *
 * A model compiled with `tfrt-compile --profile` times itself. Its static
 * table has one entry per pool launch of the entry function (a parallel
 * loop, a task group or an outlined kernel), one per kernel that runs inline
 * in the entry function (a loop nest, a linalg op or a copy too cheap to be
 * outlined), in program order, and a last entry for the rest of the inline
 * code (views, constants and the like between them). The instance
 * accumulates, per entry, the number of calls and the wall time measured on
 * the thread that runs the entry function: a launch's time covers all of its
 * chunks, on however many threads they ran. Models compiled without
 * --profile carry no table, no counters and no timing calls.
 *
 * The table hangs off the descriptor: when `flags` has
 * TFRT_MODEL_FLAG_PROFILE, the tfrt_model_desc is the first member of a
 * tfrt_profiled_model_desc. Counters belong to the instance (allocated by
 * tfrt_model_create, never during a run); they are written by the run in
 * flight only, so read or reset them between runs.
 *===----------------------------------------------------------------------===*/
#ifndef TFRT_PROFILE_H
#define TFRT_PROFILE_H

#include "tfrt/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Descriptor flag: the model was compiled with --profile. */
#define TFRT_MODEL_FLAG_PROFILE 2u

/** What a profile entry times. */
typedef enum tfrt_profile_kind {
  TFRT_PROFILE_LAUNCH = 0, /**< one pool launch (tfrt_run_parallel_for) */
  TFRT_PROFILE_KERNEL = 1, /**< one kernel inline in the entry function */
  TFRT_PROFILE_INLINE = 2, /**< the rest of the inline code (last entry) */
} tfrt_profile_kind;

/** Static description of one profile entry (emitted by tfrt-compile). */
typedef struct tfrt_profile_entry_desc {
  const char
      *nodes;      /**< the model's node names, comma-separated ("" if none) */
  const char *ops; /**< their op types (graph dialect names), comma-separated */
  uint64_t flops;  /**< floating-point operations of one call */
  uint32_t kind;   /**< a tfrt_profile_kind */
  uint32_t iterations; /**< launch iterations (chunks and tasks); 0 inline */
} tfrt_profile_entry_desc;

/** The table: launches and inline kernels in program order, then one
 *  TFRT_PROFILE_INLINE entry. */
typedef struct tfrt_profile_desc {
  uint32_t num_entries;  /**< at least 1 */
  uint32_t num_launches; /**< entries of kind TFRT_PROFILE_LAUNCH */
  const tfrt_profile_entry_desc *entries;
} tfrt_profile_desc;

/** The descriptor of a model compiled with --profile. */
typedef struct tfrt_profiled_model_desc {
  tfrt_model_desc model; /**< flags include TFRT_MODEL_FLAG_PROFILE */
  const tfrt_profile_desc *profile;
} tfrt_profiled_model_desc;

/** Accumulated measurements of one entry. */
typedef struct tfrt_profile_counter {
  uint64_t calls;
  uint64_t nanoseconds;
} tfrt_profile_counter;

/** The profile table of a descriptor; NULL when the model was compiled
 *  without --profile (or `desc` is NULL). */
TFRT_API const tfrt_profile_desc *
tfrt_model_profile_desc(const tfrt_model_desc *desc);

/** Copies the counters of `instance` into `counters` (`num_counters` must
 *  equal the table's num_entries) and the number of profiled runs and their
 *  total wall time (from the entry's start to its end) into `*runs` and
 *  `*run_nanoseconds` (either may be NULL). Call it between runs.
 *  TFRT_INVALID_ARGUMENT for a NULL instance, a model without a profile
 *  table, or a wrong count. */
TFRT_API tfrt_status tfrt_model_profile(const tfrt_instance *instance,
                                        tfrt_profile_counter *counters,
                                        size_t num_counters, uint64_t *runs,
                                        uint64_t *run_nanoseconds);

/** Zeroes the counters of `instance` (e.g. after warm-up runs). Call it
 *  between runs. TFRT_INVALID_ARGUMENT as for tfrt_model_profile. */
TFRT_API tfrt_status tfrt_model_profile_reset(tfrt_instance *instance);

/** Called by profiling builds instead of tfrt_run_parallel_for: the same
 *  loop, timed as profile entry `entry` (a launch); the time since the
 *  previous entry ended (or the run started) goes to the last entry (the
 *  rest of the inline code). Without a run context or counters it only runs
 *  the loop. */
TFRT_API void tfrt_run_parallel_for_profiled(tfrt_run_context *run, int64_t n,
                                             void (*fn)(void *ctx,
                                                        int64_t begin,
                                                        int64_t end),
                                             void *ctx, int64_t entry);

/** Called by profiling builds right after a kernel that runs inline: the
 *  time since the previous entry ended (or the run started) is one call of
 *  entry `entry`. No-op without a run context or counters. */
TFRT_API void tfrt_profile_mark(tfrt_run_context *run, int64_t entry);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFRT_PROFILE_H */
