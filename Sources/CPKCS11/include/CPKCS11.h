#ifndef MULTIAUTH_CPKCS11_H
#define MULTIAUTH_CPKCS11_H

/* The part of PKCS#11 v2.40 (OASIS) that MultiAuth calls, written from the standard's
   tables so nothing needs p11-kit's development headers: modules are opened with dlopen and
   called through their function lists. Names follow the GNU style p11-kit uses (ck_rv_t,
   struct ck_token_info); the layouts are the standard's ABI, which every module shares.
   Functions MultiAuth never calls keep their slots in the list as untyped pointers. */

typedef unsigned long ck_rv_t;
typedef unsigned long ck_flags_t;
typedef unsigned long ck_slot_id_t;
typedef unsigned long ck_session_handle_t;
typedef unsigned long ck_object_handle_t;
typedef unsigned long ck_object_class_t;
typedef unsigned long ck_key_type_t;
typedef unsigned long ck_attribute_type_t;
typedef unsigned long ck_mechanism_type_t;
typedef unsigned long ck_user_type_t;
typedef unsigned long ck_notification_t;

struct ck_version {
    unsigned char major;
    unsigned char minor;
};

struct ck_token_info {
    unsigned char label[32];
    unsigned char manufacturer_id[32];
    unsigned char model[16];
    unsigned char serial_number[16];
    ck_flags_t flags;
    unsigned long max_session_count;
    unsigned long session_count;
    unsigned long max_rw_session_count;
    unsigned long rw_session_count;
    unsigned long max_pin_len;
    unsigned long min_pin_len;
    unsigned long total_public_memory;
    unsigned long free_public_memory;
    unsigned long total_private_memory;
    unsigned long free_private_memory;
    struct ck_version hardware_version;
    struct ck_version firmware_version;
    unsigned char utc_time[16];
};

struct ck_attribute {
    ck_attribute_type_t type;
    void *value;
    unsigned long value_len;
};

struct ck_mechanism {
    ck_mechanism_type_t mechanism;
    void *parameter;
    unsigned long parameter_len;
};

struct ck_session_info {
    ck_slot_id_t slot_id;
    unsigned long state;
    ck_flags_t flags;
    unsigned long device_error;
};

typedef ck_rv_t (*ck_createmutex_t)(void **mutex);
typedef ck_rv_t (*ck_destroymutex_t)(void *mutex);
typedef ck_rv_t (*ck_lockmutex_t)(void *mutex);
typedef ck_rv_t (*ck_unlockmutex_t)(void *mutex);

struct ck_c_initialize_args {
    ck_createmutex_t create_mutex;
    ck_destroymutex_t destroy_mutex;
    ck_lockmutex_t lock_mutex;
    ck_unlockmutex_t unlock_mutex;
    ck_flags_t flags;
    void *reserved;
};

typedef ck_rv_t (*ck_notify_t)(ck_session_handle_t session, ck_notification_t event, void *application);

/* A slot of the function list that MultiAuth does not call. */
typedef void (*ck_unused_function_t)(void);

struct ck_function_list {
    struct ck_version version;
    ck_rv_t (*C_Initialize)(void *init_args);
    ck_unused_function_t C_Finalize;
    ck_unused_function_t C_GetInfo;
    ck_unused_function_t C_GetFunctionList;
    ck_rv_t (*C_GetSlotList)(unsigned char token_present, ck_slot_id_t *slot_list, unsigned long *count);
    ck_unused_function_t C_GetSlotInfo;
    ck_rv_t (*C_GetTokenInfo)(ck_slot_id_t slot_id, struct ck_token_info *info);
    ck_unused_function_t C_GetMechanismList;
    ck_unused_function_t C_GetMechanismInfo;
    ck_unused_function_t C_InitToken;
    ck_unused_function_t C_InitPIN;
    ck_unused_function_t C_SetPIN;
    ck_rv_t (*C_OpenSession)(ck_slot_id_t slot_id, ck_flags_t flags, void *application, ck_notify_t notify,
                             ck_session_handle_t *session);
    ck_rv_t (*C_CloseSession)(ck_session_handle_t session);
    ck_rv_t (*C_CloseAllSessions)(ck_slot_id_t slot_id);
    ck_rv_t (*C_GetSessionInfo)(ck_session_handle_t session, struct ck_session_info *info);
    ck_unused_function_t C_GetOperationState;
    ck_unused_function_t C_SetOperationState;
    ck_rv_t (*C_Login)(ck_session_handle_t session, ck_user_type_t user_type, unsigned char *pin, unsigned long pin_len);
    ck_unused_function_t C_Logout;
    ck_unused_function_t C_CreateObject;
    ck_unused_function_t C_CopyObject;
    ck_unused_function_t C_DestroyObject;
    ck_unused_function_t C_GetObjectSize;
    ck_rv_t (*C_GetAttributeValue)(ck_session_handle_t session, ck_object_handle_t object, struct ck_attribute *templ,
                                   unsigned long count);
    ck_unused_function_t C_SetAttributeValue;
    ck_rv_t (*C_FindObjectsInit)(ck_session_handle_t session, struct ck_attribute *templ, unsigned long count);
    ck_rv_t (*C_FindObjects)(ck_session_handle_t session, ck_object_handle_t *object, unsigned long max_object_count,
                             unsigned long *object_count);
    ck_rv_t (*C_FindObjectsFinal)(ck_session_handle_t session);
    ck_unused_function_t C_EncryptInit;
    ck_unused_function_t C_Encrypt;
    ck_unused_function_t C_EncryptUpdate;
    ck_unused_function_t C_EncryptFinal;
    ck_unused_function_t C_DecryptInit;
    ck_unused_function_t C_Decrypt;
    ck_unused_function_t C_DecryptUpdate;
    ck_unused_function_t C_DecryptFinal;
    ck_unused_function_t C_DigestInit;
    ck_unused_function_t C_Digest;
    ck_unused_function_t C_DigestUpdate;
    ck_unused_function_t C_DigestKey;
    ck_unused_function_t C_DigestFinal;
    ck_rv_t (*C_SignInit)(ck_session_handle_t session, struct ck_mechanism *mechanism, ck_object_handle_t key);
    ck_rv_t (*C_Sign)(ck_session_handle_t session, unsigned char *data, unsigned long data_len, unsigned char *signature,
                      unsigned long *signature_len);
    /* The rest (C_SignUpdate to C_WaitForSlotEvent) is never reached through this struct. */
};

/* Return values. */
#define CKR_OK (0UL)
#define CKR_GENERAL_ERROR (0x5UL)
#define CKR_FUNCTION_FAILED (0x6UL)
#define CKR_ARGUMENTS_BAD (0x7UL)
#define CKR_DEVICE_ERROR (0x30UL)
#define CKR_DEVICE_REMOVED (0x32UL)
#define CKR_FUNCTION_NOT_SUPPORTED (0x54UL)
#define CKR_KEY_FUNCTION_NOT_PERMITTED (0x68UL)
#define CKR_MECHANISM_INVALID (0x70UL)
#define CKR_PIN_INCORRECT (0xA0UL)
#define CKR_PIN_LEN_RANGE (0xA2UL)
#define CKR_PIN_LOCKED (0xA4UL)
#define CKR_SESSION_CLOSED (0xB0UL)
#define CKR_SESSION_HANDLE_INVALID (0xB3UL)
#define CKR_TOKEN_NOT_PRESENT (0xE0UL)
#define CKR_USER_ALREADY_LOGGED_IN (0x100UL)
#define CKR_USER_NOT_LOGGED_IN (0x101UL)
#define CKR_CRYPTOKI_NOT_INITIALIZED (0x190UL)
#define CKR_CRYPTOKI_ALREADY_INITIALIZED (0x191UL)

/* Attributes, object classes, key types, mechanisms, users and flags. */
#define CKA_CLASS (0x0UL)
#define CKA_LABEL (0x3UL)
#define CKA_VALUE (0x11UL)
#define CKA_KEY_TYPE (0x100UL)
#define CKA_ID (0x102UL)
#define CKO_CERTIFICATE (0x1UL)
#define CKO_PRIVATE_KEY (0x3UL)
#define CKK_RSA (0x0UL)
#define CKK_EC (0x3UL)
#define CKM_SHA256_RSA_PKCS (0x40UL)
#define CKM_ECDSA (0x1041UL)
#define CKU_USER (0x1UL)
#define CKF_OS_LOCKING_OK (0x2UL)
#define CKF_SERIAL_SESSION (0x4UL)

#endif
