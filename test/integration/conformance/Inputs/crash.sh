#!/bin/sh
# A tfrt-run that crashes.
kill -SEGV $$
