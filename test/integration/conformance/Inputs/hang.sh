#!/bin/sh
# A tfrt-run that hangs (with a child process): the runner must kill it.
sleep 300 &
sleep 300
