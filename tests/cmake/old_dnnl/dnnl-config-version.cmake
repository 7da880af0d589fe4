# oneDNN 2.5.4: one release before the oldest the backend builds against.
set(PACKAGE_VERSION 2.5.4)
set(PACKAGE_VERSION_COMPATIBLE TRUE)
