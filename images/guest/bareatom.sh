# The suite's tests and their helpers, for interactive shells in the guest (the tools are
# in /usr/sbin and /usr/bin, from the package; counter in /usr/local/sbin).
PATH=$PATH:/usr/lib/bareatom/tests/vm
export PATH
